// Share links: the program travels in the page's address, after `#`, so no server sees it:
// `#src=` the source as base64url (UTF-8), `&input=` the console's input, `&isa=` the machine,
// `&name=` the file's name.

import type { Isa } from './dialects';

export interface Shared {
  name: string;
  source: string;
  input?: string;
  isa?: Isa;
}

/** base64url of the UTF-8 bytes of `text`, without padding. */
export function encodeText(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** The text whose base64url (padded or not) `code` is; throws on what is not base64url. */
export function decodeText(code: string): string {
  const base64 = code.replace(/-/g, '+').replace(/_/g, '/');
  const binary = atob(base64 + '='.repeat((4 - (base64.length % 4)) % 4));
  const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
  return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
}

const ISAS: Isa[] = ['lc3', 'mips', 'simplerisc'];

/** The fragment (without `#`) that carries `shared`. */
export function shareFragment(shared: Shared): string {
  const parts = [`src=${encodeText(shared.source)}`];
  if (shared.input) {
    parts.push(`input=${encodeText(shared.input)}`);
  }
  if (shared.isa) {
    parts.push(`isa=${shared.isa}`);
  }
  parts.push(`name=${encodeURIComponent(shared.name)}`);
  return parts.join('&');
}

/** What a fragment carries; undefined when it carries no program; throws on a damaged one. */
export function parseFragment(fragment: string): Shared | undefined {
  const params = new URLSearchParams(fragment.replace(/^#/, ''));
  const src = params.get('src');
  if (src === null) {
    return undefined;
  }
  const isa = params.get('isa') ?? undefined;
  if (isa !== undefined && !ISAS.includes(isa as Isa)) {
    throw new Error(`the link names an unknown machine: isa=${isa} (lc3, mips or simplerisc)`);
  }
  const input = params.get('input');
  const name = (params.get('name') || 'program.asm').replace(/[\\/]/g, '_');
  return {
    name,
    source: decodeText(src),
    input: input === null ? undefined : decodeText(input),
    isa: isa as Isa | undefined,
  };
}
