// The page end to end in Debian's Chromium (playwright-core): a share link opens Nim and its
// sample game plays to the transcript; a gutter breakpoint stops it and Step back shows the
// earlier register; Snake plays with its keys to the checked-in frame; an assembly error shows
// at its line; a running program leaves the page working and Pause stops it; the speed
// control holds the program to its pace; the display's status line says the size, the pace
// and the keys typed in the past.
// Controls are found by their accessible names, as a screen reader user finds them.

import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, closeBrowser, openPage } from './support.mjs';

const b64url = (text) => Buffer.from(text, 'utf8').toString('base64url');
const read = (path) => readFileSync(join(ROOT, path), 'utf8');

test.after(closeBrowser);

const button = (page, name) => page.getByRole('button', { name, exact: true });

/** The program's own output in the Console log (not asmdbg's notes). */
async function consoleText(page) {
  return page.getByRole('log', { name: 'Console' }).evaluate((log) =>
    Array.from(log.querySelectorAll('[data-stream=stdout]'), (s) => s.textContent).join(''),
  );
}

/** Waits until the status says `text` (a regular expression). */
async function status(page, text, timeout = 30_000) {
  await page.getByRole('status').filter({ hasText: text }).waitFor({ timeout });
}

/** The Registers table as name → value. */
async function registers(page) {
  const rows = await page.getByRole('table', { name: 'Registers' }).getByRole('row').all();
  const values = {};
  for (const row of rows) {
    const [name, value] = await Promise.all([row.locator('th').textContent(), row.locator('td').textContent()]);
    values[name] = value;
  }
  return values;
}

function nimLink() {
  return `src=${b64url(read('programs/lc3/nim.asm'))}&input=${b64url(read('tests/programs/lc3/nim-sample.in'))}&name=nim.asm`;
}

test('a share link opens nim.asm and its sample game plays to the transcript', async (t) => {
  const page = await openPage(t, nimLink());
  if (!page) return;
  await page.getByRole('tab', { name: 'nim.asm' }).waitFor();
  assert.equal(await page.getByRole('combobox', { name: 'Input file' }).inputValue(), 'input.txt');
  await button(page, 'Run').click();
  await status(page, /ended/);
  assert.equal(await consoleText(page), read('tests/programs/lc3/nim-sample.out'));
});

test('a gutter breakpoint stops the program; Step back shows the earlier register', async (t) => {
  const page = await openPage(t, nimLink());
  if (!page) return;
  // nim.asm:65 `LD R0, NEWLINE` and 66 `OUT`, after the first valid move.
  const source = read('programs/lc3/nim.asm').split('\n');
  assert.match(source[64], /LD R0, NEWLINE/);
  for (const line of [65, 66]) {
    await page.evaluate((l) => window.asmdbg.revealLine(l), line);
    // CodeMirror hides its gutters from screen readers (F9 sets a breakpoint from the keyboard).
    await page.locator(`[data-breakpoint-line="${line}"]`).click();
    await page.locator(`[data-breakpoint-line="${line}"][aria-pressed=true]`).waitFor();
  }
  await button(page, 'Run').click();
  await status(page, /breakpoint/);
  await page.locator('.cm-stopped-line').filter({ hasText: 'LD R0, NEWLINE' }).waitFor();
  const before = await registers(page);
  await button(page, 'Run').click();
  await page.locator('.cm-stopped-line').filter({ hasText: 'OUT' }).waitFor();
  const at = await registers(page);
  assert.match(at.R0, /^x000A\b/, JSON.stringify(at));
  assert.notEqual(before.R0, at.R0);
  // The register the line changed is marked.
  const r0 = page.getByRole('table', { name: 'Registers' }).getByRole('row').filter({ has: page.locator('th', { hasText: /^R0$/ }) });
  assert.equal(await r0.getAttribute('class'), 'changed');
  await button(page, 'Step back').click();
  await page.locator('.cm-stopped-line').filter({ hasText: 'LD R0, NEWLINE' }).waitFor();
  await status(page, /Paused/);
  assert.equal((await registers(page)).R0, before.R0);
});

test('snake plays with its keys to the checked-in frame', async (t) => {
  const page = await openPage(t);
  if (!page) return;
  await page.getByRole('combobox', { name: 'Example' }).selectOption({ label: 'Snake (MIPS, Bitmap Display)' });
  await page.getByRole('combobox', { name: 'Keys file' }).selectOption('snake.keys');
  await page.getByRole('textbox', { name: 'Launch options' }).fill('{"virtualTime": true}');
  await button(page, 'Run').click();
  await status(page, /ended/, 60_000);
  assert.equal(await consoleText(page), 'Game over! Score: 8\n');
  const golden = `data:image/png;base64,${readFileSync(join(ROOT, 'tests/frames/snake.png')).toString('base64')}`;
  const differ = await page.evaluate(async (url) => {
    const shown = document.getElementById('display');
    const image = new Image();
    image.src = url;
    await image.decode();
    if (image.width !== shown.width || image.height !== shown.height) {
      return `the display is ${shown.width}x${shown.height}, the frame ${image.width}x${image.height}`;
    }
    const scratch = document.createElement('canvas');
    scratch.width = image.width;
    scratch.height = image.height;
    const context = scratch.getContext('2d');
    context.drawImage(image, 0, 0);
    const want = context.getImageData(0, 0, image.width, image.height).data;
    const got = shown.getContext('2d').getImageData(0, 0, shown.width, shown.height).data;
    let count = 0;
    let first = -1;
    for (let i = 0; i < want.length; i += 4) {
      if (want[i] !== got[i] || want[i + 1] !== got[i + 1] || want[i + 2] !== got[i + 2]) {
        count++;
        first = first < 0 ? i / 4 : first;
      }
    }
    return count === 0 ? '' : `${count} pixels differ, the first at (${first % image.width}, ${Math.floor(first / image.width)})`;
  }, golden);
  assert.equal(differ, '');
});

test('keys typed on the focused display reach the game', async (t) => {
  const page = await openPage(t);
  if (!page) return;
  await page.getByRole('combobox', { name: 'Example' }).selectOption({ label: 'Snake (MIPS, Bitmap Display)' });
  await button(page, 'Run').click();
  await status(page, /Running/);
  const display = page.getByLabel(/^Display/);
  await display.waitFor();
  await display.click();
  await page.keyboard.press('q');
  await status(page, /ended/);
  assert.match(await consoleText(page), /Bye! Score: 0/);
});

test('an assembly error shows at its line', async (t) => {
  const page = await openPage(t, `src=${b64url('.ORIG x3000\nHALT\n.END\n')}&name=bad.asm`);
  if (!page) return;
  const editor = page.getByRole('textbox', { name: 'Assembly source' });
  await editor.click();
  await page.keyboard.press('Control+End');
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('Home');
  await page.keyboard.type('ADD R1, R1, #16\n');
  await button(page, 'Run').click();
  await status(page, /Assembly failed/);
  const second = page.locator('.cm-content .cm-line').nth(1);
  assert.equal(await second.textContent(), 'ADD R1, R1, #16');
  await second.locator('.cm-lintRange-error').waitFor();
  assert.equal(await second.locator('.cm-lintRange-error').textContent(), '#16');
  const log = await page.getByRole('log', { name: 'Console' }).textContent();
  assert.match(log, /bad\.asm:2:13: error: /);
});

/**
 * The instruction the stopped program is at and the recorded count, from the Timeline (once
 * the stop's panes are drawn: the slider is enabled then, disabled while the program runs).
 */
async function timeline(page) {
  const slider = page.getByRole('slider', { name: 'Timeline', disabled: false });
  await slider.waitFor();
  const text = await slider.getAttribute('aria-valuetext');
  const [, now, recorded] = /instruction (\d+) of (\d+)/.exec(text ?? '') ?? [];
  assert.ok(now !== undefined, `the timeline says ${text}`);
  return { now: Number(now), recorded: Number(recorded) };
}

/** The speed control, set with the keyboard as a screen reader user sets it. */
async function setSpeed(page, steps) {
  const slider = page.getByRole('slider', { name: 'Speed' });
  await slider.focus();
  for (const key of steps) {
    await page.keyboard.press(key);
  }
  return slider.getAttribute('aria-valuetext');
}

test('a running program leaves the page working, and Pause stops it', async (t) => {
  // How soon Pause stops it and how long the page's event loop may stall are measured by
  // scripts/bench (web/bench.mjs), not asserted here.
  const loop = '.ORIG x3000\nLOOP ADD R0, R0, #1\nBRnzp LOOP\n.END\n';
  const page = await openPage(t, `src=${b64url(loop)}&name=loop.asm`);
  if (!page) return;
  await button(page, 'Run').click();
  await status(page, /Running/);
  // The page answers while the worker runs: the speed control's handler says what a new
  // speed would do, and the editor takes typing.
  assert.equal(await setSpeed(page, ['Home']), '1 instruction a second');
  await status(page, /Restart runs it at 1 instruction a second/);
  const editor = page.getByRole('textbox', { name: 'Assembly source' });
  await editor.click();
  await page.keyboard.press('Control+End');
  await page.keyboard.type('; typed while it ran');
  await page.locator('.cm-line').filter({ hasText: '; typed while it ran' }).waitFor();
  await status(page, /Restart runs it/);
  assert.equal(await button(page, 'Pause').isEnabled(), true);
  // Pause stops it, at full speed (the run kept the speed it was launched with), and it
  // stays stopped; Run goes on from there and Pause stops it again.
  for (let round = 0; round < 2; round++) {
    await button(page, 'Pause').click();
    await status(page, /^Paused$/);
    const paused = await timeline(page);
    assert.ok(paused.now > 10_000, `paused at instruction ${paused.now}`);
    await page.waitForTimeout(200);
    assert.deepEqual(await timeline(page), paused);
    await button(page, 'Run').click();
    await status(page, /Running/);
  }
});

test('the speed control holds the program to its pace, from the next launch', async (t) => {
  const loop = '.ORIG x3000\nLOOP ADD R0, R0, #1\nBRnzp LOOP\n.END\n';
  const page = await openPage(t, `src=${b64url(loop)}&name=loop.asm`);
  if (!page) return;
  const slider = page.getByRole('slider', { name: 'Speed' });
  // Unlimited by default, as asmdbg runs without --speed; the steps go 1, 2, 5, 10, ...
  assert.equal(await slider.getAttribute('aria-valuetext'), 'unlimited');
  assert.equal(await setSpeed(page, ['Home', 'ArrowRight', 'ArrowRight', 'ArrowRight']), '10 instructions a second');
  assert.equal(await page.locator('#speed-text').textContent(), '10 instructions a second');
  await button(page, 'Run').click();
  await status(page, /Running/);
  await page.waitForTimeout(300);
  await button(page, 'Pause').click();
  await status(page, /^Paused$/);
  // Held to 10 a second: a handful of instructions, where the unlimited run above did
  // millions in the same time (no bound on how few: a slow machine runs fewer).
  const paced = await timeline(page);
  assert.ok(paced.now >= 1 && paced.now <= 60, `at instruction ${paced.now}`);
  // A new speed is the next launch's: Restart runs the program again at it.
  assert.equal(await setSpeed(page, ['End']), 'unlimited');
  await status(page, /Restart runs it at unlimited/);
  await button(page, 'Restart').click();
  await status(page, /entry/);
  await button(page, 'Run').click();
  await status(page, /Running/);
  await page.waitForTimeout(300);
  await button(page, 'Pause').click();
  await status(page, /^Paused$/);
  const unlimited = await timeline(page);
  assert.ok(unlimited.now > 10_000, `at instruction ${unlimited.now}`);
});

test('the display says its size, the pace and the keys typed in the past', async (t) => {
  const page = await openPage(t);
  if (!page) return;
  const example = page.getByRole('combobox', { name: 'Example' });
  const line = page.locator('#display-status');
  // Meteors is timed by MARS's pace: its example sets the speed control to 2 M.
  await example.selectOption({ label: 'Meteors (MIPS, Bitmap Display, MARS pace)' });
  assert.equal(await page.getByRole('slider', { name: 'Speed' }).getAttribute('aria-valuetext'), '2 M instructions a second');
  await button(page, 'Run').click();
  await line.filter({ hasText: '32×32 display, ×8 · 2 M instructions a second' }).waitFor();
  await button(page, 'Stop').click();
  // Snake at full speed; stopped in its past, a key waits for the end of the recording.
  await example.selectOption({ label: 'Snake (MIPS, Bitmap Display)' });
  assert.equal(await page.getByRole('slider', { name: 'Speed' }).getAttribute('aria-valuetext'), 'unlimited');
  await button(page, 'Run').click();
  await line.filter({ hasText: '32×32 display, ×8 · full speed' }).waitFor();
  await page.waitForTimeout(300);
  await button(page, 'Pause').click();
  await status(page, /^Paused$/);
  await button(page, 'Step back').click();
  await status(page, /step/);
  const past = await timeline(page);
  assert.ok(past.now < past.recorded, JSON.stringify(past));
  await page.getByLabel(/^Display/).click();
  await page.keyboard.press('d');
  await line.filter({ hasText: 'A key typed in the past waits for the end of the recording' }).waitFor();
  await page.keyboard.press('w');
  await line.filter({ hasText: '2 keys typed in the past wait' }).waitFor();
  // Run goes back to the end of the recording, where the game gets them: the line forgets them.
  await button(page, 'Run').click();
  await status(page, /Running/);
  await page.waitForTimeout(300);
  await button(page, 'Pause').click();
  await status(page, /^Paused$/);
  await line.filter({ hasNotText: 'typed in the past' }).filter({ hasText: 'full speed' }).waitFor();
});
