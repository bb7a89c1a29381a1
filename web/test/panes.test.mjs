// The page's other flows in Chromium: stepping by line (into, over, out), a watch on a label
// (a data breakpoint) forward and backward, the timeline, the console's input (LC-3 keys as
// typed, and typed in the past; MIPS lines), a MIPS program of two files (.include), the memory pane, saving a file.

import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, WEB, closeBrowser, openPage } from './support.mjs';

const b64url = (text) => Buffer.from(text, 'utf8').toString('base64url');
const read = (path) => readFileSync(join(ROOT, path), 'utf8');

test.after(closeBrowser);

const button = (page, name) => page.getByRole('button', { name, exact: true });

async function consoleText(page) {
  return page.getByRole('log', { name: 'Console' }).evaluate((log) =>
    Array.from(log.querySelectorAll('[data-stream=stdout]'), (s) => s.textContent).join(''),
  );
}

async function status(page, text, timeout = 30_000) {
  await page.getByRole('status').filter({ hasText: text }).waitFor({ timeout });
}

/** The stopped line's text, once it is `text`. */
async function stoppedAt(page, text) {
  await page.locator('.cm-stopped-line').filter({ hasText: text }).waitFor();
}

/** The current instruction count the timeline shows. */
async function now(page) {
  const text = await page.locator('#timeline-text').textContent();
  return Number(/instruction ([\d,]+)/.exec(text)[1].replace(/,/g, ''));
}

/** Waits until the timeline shows another count than `count`; returns it. */
async function movedFrom(page, count) {
  await page
    .locator('#timeline-text')
    .filter({ hasNotText: new RegExp(`^instruction ${count.toLocaleString('en')} of`) })
    .filter({ hasText: /^instruction / })
    .waitFor();
  return now(page);
}

const nim = (input) =>
  `src=${b64url(read('programs/lc3/nim.asm'))}${input ? `&input=${b64url(input)}` : ''}&name=nim.asm`;

test('Step, Step over and Step out move by lines and calls', async (t) => {
  const page = await openPage(t, nim(read('tests/programs/lc3/nim-sample.in')));
  if (!page) return;
  await button(page, 'Step').click();
  await status(page, /entry/);
  await stoppedAt(page, 'JSR DISPLAY_BOARD');
  await button(page, 'Step over').click();
  await stoppedAt(page, 'JSR DISPLAY_PROMPT');
  assert.equal(await consoleText(page), 'ROW A: ooo\nROW B: ooooo\nROW C: oooooooo\n');
  await button(page, 'Step').click();
  await status(page, /step/);
  const stack = page.getByRole('list', { name: 'Call stack' }).getByRole('listitem');
  await stack.first().filter({ hasText: 'DISPLAY_PROMPT' }).waitFor();
  assert.equal(await stack.count(), 2);
  await button(page, 'Step out').click();
  await stoppedAt(page, 'JSR GET_MOVE');
  assert.equal(await stack.count(), 1);
});

test('a watch on a label stops at its writes, forward and backward; the timeline goes back', async (t) => {
  const page = await openPage(t, nim(read('tests/programs/lc3/nim-sample.in')));
  if (!page) return;
  await button(page, 'Step').click();
  await status(page, /entry/);
  const labels = page.getByRole('table', { name: 'Labels' });
  await labels.getByRole('row').filter({ hasText: 'CURRENT_PLAYER' }).waitFor();
  await page.getByRole('combobox', { name: 'Label to watch' }).selectOption('CURRENT_PLAYER');
  await button(page, 'Watch').click();
  const watches = page.getByRole('table', { name: 'Watches' });
  const watched = watches.getByRole('row').filter({ hasText: 'CURRENT_PLAYER' });
  await watched.waitFor();
  await button(page, 'Run').click();
  await status(page, /watched write/);
  await watched.locator('td').first().filter({ hasText: /^2\b|x0002/ }).waitFor();
  const first = await now(page);
  await button(page, 'Run').click();
  const second = await movedFrom(page, first);
  await status(page, /watched write/);
  await watched.locator('td').first().filter({ hasText: /^1\b|x0001/ }).waitFor();
  assert.ok(second > first, `${second} > ${first}`);
  // The README's picture of the page (web/screenshot.png is a copy of it).
  mkdirSync(join(WEB, 'test-results'), { recursive: true });
  await page.screenshot({ path: join(WEB, 'test-results', 'screenshot.png') });
  await button(page, 'Reverse continue').click();
  const back = await movedFrom(page, second);
  await status(page, /watched write/);
  assert.ok(back < second && back >= first - 1, `back at ${back}, writes at ${first} and ${second}`);
  // The timeline: to the start of the recorded run.
  const timeline = page.getByRole('slider', { name: 'Timeline' });
  await timeline.focus();
  await page.keyboard.press('Home');
  await page.locator('#timeline-text').filter({ hasText: /^instruction 0 of/ }).waitFor();
  await stoppedAt(page, 'JSR DISPLAY_BOARD');
  // The memory pane shows the labels' bytes.
  await page.getByRole('textbox', { name: 'Memory address' }).fill('CURRENT_PLAYER');
  await button(page, 'Show').click();
  await page.getByLabel('Memory', { exact: true }).filter({ hasText: 'CURRENT_PLAYER' }).waitFor();
});

test('LC-3 keys typed in the console reach the program as typed', async (t) => {
  const page = await openPage(t, nim());
  if (!page) return;
  await button(page, 'Run').click();
  await page.getByRole('log', { name: 'Console' }).filter({ hasText: 'Player 1, choose' }).waitFor();
  await page.getByRole('textbox', { name: 'Console input' }).click();
  await page.keyboard.type('B2');
  await page.getByRole('log', { name: 'Console' }).filter({ hasText: 'Player 2, choose' }).waitFor();
  assert.match(await consoleText(page), /rocks: B2\n\nROW A: ooo\nROW B: ooo\n/);
  // A key typed while the program is stopped in its past waits for the end of the recording,
  // and the console says so (LC-3 without a display); Run takes the program back there and it
  // reads the key then.
  await button(page, 'Pause').click();
  await status(page, /^Paused$/);
  await button(page, 'Step back').click();
  await status(page, /step/);
  await page.getByRole('textbox', { name: 'Console input' }).click();
  await page.keyboard.type('A');
  await page
    .getByRole('log', { name: 'Console' })
    .filter({ hasText: 'A key typed in the past waits for the end of the recording, where the program gets them one by one.' })
    .waitFor();
  await button(page, 'Run').click();
  await status(page, /Running/);
  await page.getByRole('textbox', { name: 'Console input' }).click();
  await page.keyboard.type('1');
  // The program's output (the note aside) goes on where it was: the key, then the move.
  await page.waitForFunction(() =>
    /rocks: A1\n\nROW A: oo\n[^]*Player 1, choose/.test(
      Array.from(document.querySelectorAll('#console [data-stream=stdout]'), (s) => s.textContent).join(''),
    ),
  );
});

test('a MIPS program of two files: .include, and a line typed in the console', async (t) => {
  const main = '.data\nprompt: .asciiz "name? "\n.text\n.include "greet.asm"\nli $v0, 10\nsyscall\n';
  const page = await openPage(t, `src=${b64url(main)}&name=main.asm`);
  if (!page) return;
  page.once('dialog', (dialog) => dialog.accept('greet.asm'));
  await button(page, 'New file').click();
  await page.getByRole('tab', { name: 'greet.asm', selected: true }).waitFor();
  await page.getByRole('textbox', { name: 'Assembly source' }).click();
  await page.keyboard.type('la $a0, prompt\nli $v0, 4\nsyscall\nli $v0, 5\nsyscall\nmove $a0, $v0\nli $v0, 1\nsyscall\n');
  await button(page, 'Run').click();
  await page.getByRole('log', { name: 'Console' }).filter({ hasText: 'name? ' }).waitFor();
  await page.getByRole('textbox', { name: 'Console input' }).fill('41');
  await page.keyboard.press('Enter');
  await status(page, /ended/);
  assert.equal(await consoleText(page), 'name? 41');
  // The line typed shows where it was typed, as on MARS's console.
  assert.equal(await page.getByRole('log', { name: 'Console' }).textContent(), 'name? 41\n41');
});

test('Save downloads the file in the editor', async (t) => {
  const page = await openPage(t, `src=${b64url('.ORIG x3000\nHALT\n.END\n')}&name=halt.asm`);
  if (!page) return;
  const [download] = await Promise.all([page.waitForEvent('download'), button(page, 'Save').click()]);
  assert.equal(download.suggestedFilename(), 'halt.asm');
  const path = await download.path();
  assert.equal(readFileSync(path, 'utf8'), '.ORIG x3000\nHALT\n.END\n');
});
