// What the page's tests share: the built page served on loopback, and Debian's Chromium
// driven by playwright-core (its own browser downloads are not used).
//
// The page must be built first (scripts/web --build, which scripts/test runs). A missing
// browser or build skips a test with a notice, except under ASMDBG_REQUIRE_TOOLS=1 (what
// scripts/test and CI set), where it is a failure.

import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from '../serve.mjs';

export const WEB = join(dirname(fileURLToPath(import.meta.url)), '..');
export const ROOT = join(WEB, '..');
export const DIST = process.env.ASMDBG_WEB_DIST ?? join(WEB, 'dist');
export const PKG = join(WEB, 'pkg');

/** Chromium's executable, or undefined. */
export function findChromium() {
  for (const candidate of [process.env.CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser']) {
    if (candidate && existsSync(candidate)) {
      return candidate;
    }
  }
  return undefined;
}

/** Fails (ASMDBG_REQUIRE_TOOLS=1) or skips `t` for `why`; returns false either way. */
export function missing(t, why) {
  if (process.env.ASMDBG_REQUIRE_TOOLS === '1') {
    assert.fail(`${why}, and ASMDBG_REQUIRE_TOOLS=1 requires it`);
  }
  t.skip(why);
  return false;
}

/** The built page's files are there (scripts/web --build). */
export function built(t) {
  if (!existsSync(join(DIST, 'index.html')) || !existsSync(join(DIST, 'asmdbg_web_bg.wasm'))) {
    return missing(t, `the page is not built in ${DIST} (scripts/web --build builds it)`);
  }
  return true;
}

let shared;

/** The served page and a browser, started once for the file's tests. */
export async function browser(t) {
  const executablePath = findChromium();
  if (!executablePath) {
    missing(t, 'chromium is not installed (scripts/test installs it; CHROMIUM names another browser)');
    return undefined;
  }
  if (!built(t)) {
    return undefined;
  }
  if (!shared) {
    shared = (async () => {
      const { chromium } = await import('playwright-core');
      const { url, server } = await serve(DIST, 0);
      const profile = mkdtempSync(join(tmpdir(), 'asmdbg-web-chromium-'));
      const context = await chromium.launchPersistentContext(profile, {
        executablePath,
        headless: true,
        // As root in a container Chromium's sandbox cannot start; the closed network makes
        // its background connections fail, so they are off.
        args: [
          '--no-sandbox',
          '--disable-gpu',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
          '--no-first-run',
        ],
        viewport: { width: 1400, height: 900 },
      });
      return { url, server, context, profile };
    })();
  }
  return shared;
}

export async function closeBrowser() {
  if (shared) {
    const { server, context, profile } = await shared;
    await context.close();
    server.close();
    rmSync(profile, { recursive: true, force: true });
    shared = undefined;
  }
}

/** A new page at `fragment` (after `#`, or none); page errors fail the test. */
export async function openPage(t, fragment = '') {
  const b = await browser(t);
  if (!b) {
    return undefined;
  }
  const page = await b.context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  t.after(async () => {
    await page.close();
    assert.deepEqual(errors, [], 'the page threw');
  });
  await page.goto(`${b.url}${fragment ? `#${fragment}` : ''}`);
  return page;
}
