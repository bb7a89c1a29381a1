// Builds the page into dist/: the app and its worker bundled by esbuild (the example programs
// bundled in as text), the static files, and the WebAssembly module with its wasm-bindgen glue
// (web/pkg/, which scripts/web makes: `wasm-bindgen --target web`). Run by scripts/web.
//
//   node build.mjs [--out DIR]

import { build } from 'esbuild';
import { cpSync, mkdirSync, existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const here = dirname(fileURLToPath(import.meta.url));
const { values } = parseArgs({
  options: { out: { type: 'string', default: join(here, 'dist') } },
});
const pkg = join(here, 'pkg');
const out = resolve(values.out);
const wasm = join(pkg, 'asmdbg_web_bg.wasm');
if (!existsSync(wasm)) {
  console.error(`web/build.mjs: ${wasm} is missing: build it with scripts/web (cargo and wasm-bindgen)`);
  process.exit(1);
}
mkdirSync(out, { recursive: true });
await build({
  entryPoints: { main: join(here, 'app/main.ts'), worker: join(here, 'app/worker.ts') },
  outdir: out,
  bundle: true,
  format: 'esm',
  target: 'es2022',
  minify: true,
  sourcemap: true,
  loader: { '.asm': 'text', '.keys': 'text', '.in': 'text', '.txt': 'text' },
  logLevel: 'warning',
});
cpSync(join(here, 'static'), out, { recursive: true });
cpSync(wasm, join(out, 'asmdbg_web_bg.wasm'));
console.log(`web: built ${out}`);
