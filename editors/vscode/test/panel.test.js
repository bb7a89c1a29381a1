// The "asmdbg display" panel's page (display/panel.html and panel.js) in headless Chromium,
// driven by puppeteer-core, with a stand-in for VS Code's acquireVsCodeApi: a frame message
// draws the right colours at the right places (each unit a block of its unit size), keys typed
// post the right messages, and the page works under the Content Security Policy the extension
// gives it.
//
// Chromium is Debian's `chromium` (scripts/test installs it), or the browser CHROMIUM names.
// Without it the tests are skipped with a notice, except under ASMDBG_REQUIRE_TOOLS=1, where a
// missing browser is a failure.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { pathToFileURL } = require('node:url');
const puppeteer = require('puppeteer-core');
const { panelHtml } = require('../display');

const PAGE = path.join(__dirname, '..', 'display', 'panel.html');
const SCRIPT = path.join(__dirname, '..', 'display', 'panel.js');

// The browser's executable, or undefined.
function findChromium() {
  if (process.env.CHROMIUM) {
    return process.env.CHROMIUM;
  }
  for (const name of ['chromium', 'chromium-browser', 'google-chrome']) {
    for (const dir of (process.env.PATH || '').split(path.delimiter)) {
      const candidate = path.join(dir, name);
      try {
        fs.accessSync(candidate, fs.constants.X_OK);
        return candidate;
      } catch {
        // not here
      }
    }
  }
  return undefined;
}

// The browser for this file's tests; undefined (after skipping `t`) when there is none and
// none is required.
let browserPromise;
async function browser(t) {
  const executablePath = findChromium();
  if (!executablePath) {
    const why = 'chromium is not installed (scripts/test installs it; CHROMIUM names another browser)';
    if (process.env.ASMDBG_REQUIRE_TOOLS === '1') {
      assert.fail(`${why}, and ASMDBG_REQUIRE_TOOLS=1 requires it`);
    }
    t.skip(why);
    return undefined;
  }
  browserPromise = browserPromise || puppeteer.launch({
    executablePath,
    headless: true,
    // The page is this repository's own; the sandbox needs privileges a container (or root)
    // does not have.
    args: ['--no-sandbox', '--allow-file-access-from-files'],
  });
  return browserPromise;
}

test.after(async () => {
  if (browserPromise) {
    await (await browserPromise).close();
  }
});

// A page with the stand-in for VS Code's webview API: what the page posts is kept in
// window.posted. `url` is the page to load (the panel's own file by default).
async function openPanel(t, url = pathToFileURL(PAGE).href) {
  const chromium = await browser(t);
  if (!chromium) {
    return undefined;
  }
  const page = await chromium.newPage();
  t.after(() => page.close());
  const problems = [];
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') {
      problems.push(message.text());
    }
  });
  await page.evaluateOnNewDocument(() => {
    window.posted = [];
    let acquired = false;
    window.acquireVsCodeApi = () => {
      // VS Code allows one call per page.
      if (acquired) {
        throw new Error('acquireVsCodeApi called twice');
      }
      acquired = true;
      return {
        postMessage: (message) => window.posted.push(message),
        getState: () => undefined,
        setState: () => {},
      };
    };
  });
  await page.goto(url);
  await page.waitForFunction(() => window.posted.some((m) => m.type === 'ready'));
  page.problems = problems;
  return page;
}

// Units as 0xRRGGBB, row-major, into the event's body.
function frameOf(width, height, unitWidth, unitHeight, units) {
  const rgb = Buffer.alloc(units.length * 3);
  units.forEach((c, i) => rgb.writeUIntBE(c, 3 * i, 3));
  return { width, height, unitWidth, unitHeight, pixels: rgb.toString('base64') };
}

// What the extension does: a message to the page.
async function post(page, message) {
  await page.evaluate((m) => window.postMessage(m, '*'), message);
  // Messages are delivered as tasks: one more round trip lets the page handle it.
  await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 0)));
}

// The canvas's size and its pixels as 0xRRGGBB, row-major.
async function canvasPixels(page) {
  return page.evaluate(() => {
    const canvas = document.getElementById('screen');
    const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
    const pixels = [];
    for (let i = 0; i < data.length; i += 4) {
      pixels.push((data[i] << 16) | (data[i + 1] << 8) | data[i + 2]);
    }
    return { width: canvas.width, height: canvas.height, pixels };
  });
}

const UNITS = [
  0xff0000, 0x00ff00, 0x0000ff,
  0x123456, 0xffffff, 0x000000,
];

// Each screen pixel of a 3 x 2 frame of 4 x 2 units has its unit's colour.
function assertDrawn(drawn) {
  assert.equal(drawn.width, 12);
  assert.equal(drawn.height, 4);
  for (let y = 0; y < 4; y++) {
    for (let x = 0; x < 12; x++) {
      const want = UNITS[Math.floor(y / 2) * 3 + Math.floor(x / 4)];
      const got = drawn.pixels[y * 12 + x];
      assert.equal(got, want, `pixel (${x}, ${y}): 0x${got.toString(16)} instead of 0x${want.toString(16)}`);
    }
  }
}

test('a frame is drawn at screen size: each unit a block of its colour', async (t) => {
  const page = await openPanel(t);
  if (!page) {
    return;
  }
  await post(page, { type: 'frame', frame: frameOf(3, 2, 4, 2, UNITS) });
  assertDrawn(await canvasPixels(page));
  const shown = await page.evaluate(() => ({
    hidden: document.getElementById('screen').hidden,
    rendering: getComputedStyle(document.getElementById('screen')).imageRendering,
    status: document.getElementById('status').textContent,
  }));
  assert.equal(shown.hidden, false);
  assert.equal(shown.rendering, 'pixelated', 'scaled to fit, pixels stay sharp');
  assert.match(shown.status, /3x2 units of 4x2 px/);
  // The next frame replaces it; a damaged one is refused, and the last good one stays.
  const next = UNITS.map((c) => c ^ 0xffffff);
  await post(page, { type: 'frame', frame: frameOf(3, 2, 4, 2, next) });
  assert.equal((await canvasPixels(page)).pixels[0], 0x00ffff);
  await post(page, { type: 'frame', frame: { ...frameOf(3, 2, 4, 2, next), width: 4 } });
  assert.equal((await canvasPixels(page)).pixels[0], 0x00ffff);
  assert.match(await page.$eval('#status', (e) => e.textContent), /instead of 24: not drawn/);
  assert.equal(await page.$eval('#status', (e) => e.className), 'error');
  // A status line from the extension.
  await post(page, { type: 'status', text: 'The debug session ended' });
  assert.equal(await page.$eval('#status', (e) => e.textContent), 'The debug session ended');
  assert.deepEqual(page.problems, []);
});

test('keys typed in the panel are posted as the character codes the program reads', async (t) => {
  const page = await openPanel(t);
  if (!page) {
    return;
  }
  await page.click('#status');
  for (const key of ['w', 'A', ' ', 'Enter', 'Backspace', 'Escape', 'ArrowLeft', 'Shift', '1']) {
    await page.keyboard.press(key);
  }
  // Shortcuts are VS Code's.
  await page.keyboard.down('Control');
  await page.keyboard.press('c');
  await page.keyboard.up('Control');
  // Keys of a keyboard layout puppeteer has no table for: Latin-1 is one byte, others none.
  await page.evaluate(() => {
    for (const key of ['\u00e9', '\u263a']) {
      window.dispatchEvent(new KeyboardEvent('keydown', { key }));
    }
  });
  const keys = await page.evaluate(() => window.posted.filter((m) => m.type === 'key').map((m) => m.key));
  assert.deepEqual(keys, [0x77, 0x41, 0x20, 0x0a, 0x08, 0x1b, 0x31, 0xe9]);
  assert.deepEqual(page.problems, []);
});

test('the page the extension serves works under its Content Security Policy', async (t) => {
  // The extension's HTML, with the script at a file URL (VS Code gives a webview URI).
  const webview = {
    cspSource: 'file:',
    asWebviewUri: (uri) => pathToFileURL(uri.fsPath).href,
  };
  const vscode = { Uri: { file: (fsPath) => ({ fsPath }) } };
  const html = panelHtml(vscode, webview);
  assert.match(html, /<meta http-equiv="Content-Security-Policy" content="default-src 'none';/);
  assert.ok(html.includes(`src="${pathToFileURL(SCRIPT).href}"`), 'the script at its webview URI');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'asmdbg-panel-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'panel.html');
  fs.writeFileSync(file, html);
  const page = await openPanel(t, pathToFileURL(file).href);
  if (!page) {
    return;
  }
  await post(page, { type: 'frame', frame: frameOf(3, 2, 4, 2, UNITS) });
  assertDrawn(await canvasPixels(page));
  assert.deepEqual(page.problems, [], 'no script or style refused by the policy');
});
