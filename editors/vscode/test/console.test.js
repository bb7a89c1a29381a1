// `asmdbg dap` and the program's console, driven by the VS Code team's DebugClient (issue 28
// items 6 and 7): a failed launch is answered with its error and no `initialized` (so the
// client sends no configuration requests that would fail too); `> text` in the Debug Console
// types keys to LC-3 and a line to MARS; SimpleRISC's assembler warnings arrive as stderr.
//
// The adapter is $ASMDBG, or target/debug/asmdbg of this checkout (`cargo build` makes it).
// A missing adapter fails every test here: it is never skipped.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { PROGRAMS, TEST_OPTIONS, delay, scratch, Session } = require('./support');

// Waits until the program's output contains `text` `times` times.
async function shown(session, text, times = 1) {
  const count = () => session.stdout.split(text).length - 1;
  for (let i = 0; i < 200 && count() < times; i++) {
    await delay(25);
  }
  assert.ok(count() >= times, `${JSON.stringify(text)} not ${times} times in ${JSON.stringify(session.stdout)}`);
}

test('a failed launch is the one error: no initialized, and a launch that works then gets it', TEST_OPTIONS, async (t) => {
  const session = await Session.start(t);
  const bad = scratch(t, 'bad.asm', '\t.ORIG x3000\n\tADD R1, R9, #1\n\t.END\n');
  await session.dc.initializeRequest();
  await assert.rejects(
    session.dc.launchRequest({ program: bad, console: 'internalConsole' }),
    /bad\.asm:2:/,
  );
  await session.dc.threadsRequest();
  assert.ok(!session.queued.some((e) => e.event === 'initialized'), 'initialized after a failed launch');
  await session.dc.launchRequest({ program: path.join(PROGRAMS, 'lc3', 'nim.asm'), console: 'internalConsole' });
  await session.event('initialized');
  await session.dc.setExceptionBreakpointsRequest({ filters: [] });
  await session.dc.configurationDoneRequest();
  assert.equal((await session.stopped()).reason, 'entry');
});

test('LC-3 dots: `> B0` types the keys B and 0, and the next move is not rejected', TEST_OPTIONS, async (t) => {
  const session = await Session.start(t);
  await session.launch({ program: path.join(PROGRAMS, 'lc3', 'dots.asm') });
  await session.dc.continueRequest({ threadId: 1 });
  await shown(session, 'Player 1, input a move');
  await session.type('B0');
  await shown(session, 'Player 2, input a move');
  await session.type('C1');
  // The move C1 is played (player 1's turn again), not rejected for a stray Enter.
  await shown(session, 'Player 1, input a move', 2);
  assert.ok(!session.stdout.includes('Invalid'), session.stdout);
});

test('MIPS: `> 42` types the line 42 and its Enter', TEST_OPTIONS, async (t) => {
  const session = await Session.start(t);
  const program = scratch(t, 'echo.asm', '.text\nmain:\tli $v0, 5\n\tsyscall\n\tmove $a0, $v0\n\tli $v0, 1\n\tsyscall\n\tli $v0, 10\n\tsyscall\n');
  await session.launch({ program, isa: 'mips' });
  await session.dc.continueRequest({ threadId: 1 });
  await session.type('42');
  await shown(session, '42');
  assert.equal(session.stdout, '42');
});

test('SimpleRISC: the assembler\'s warnings arrive as stderr', TEST_OPTIONS, async (t) => {
  const session = await Session.start(t);
  const program = scratch(t, 'warn.asm', '.main:\n    mov r1, 5\n    b skip\n    bogus r2\nskip:\n    .print r1\n');
  await session.launch({ program, isa: 'simplerisc' });
  const warnings = session.stderr.join('');
  assert.match(warnings, /warn\.asm:4:5: warning: invalid instruction/);
  assert.match(warnings, /bogus r2/);
});
