// `asmdbg dap`'s answers, round 2 (issue 38), driven by the VS Code team's DebugClient: the
// `thread` event once the program exists (a client can pause a session that never stopped);
// `restart` keeps what the launch configured (the console's input, pokes, profile) and works
// while the program runs; a change in the past says on the Debug Console that the recorded
// future was discarded, and going back and forth after it shows the new history; step out
// backwards (asmdbgStepOutBack) out of a subroutine.
//
// The adapter is $ASMDBG, or target/debug/asmdbg of this checkout (`cargo build` makes it).
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { TEST_OPTIONS, delay, scratch, Session } = require('./support');

// Waits (up to a few seconds) until `ready()` holds: events come after their request's response.
async function until(ready, what) {
  for (let i = 0; i < 200 && !ready(); i++) {
    await delay(20);
  }
  assert.ok(ready(), what);
}

// Reads two keys and echoes them, adds one to COUNT, then waits in a loop for ever.
const ECHO = '\t.ORIG x3000\n\tGETC\n\tOUT\n\tGETC\n\tOUT\n\tLD R1, COUNT\n\tADD R1, R1, #1\n'
  + '\tST R1, COUNT\nWAIT\tBRnzp WAIT\nCOUNT\t.FILL 0\n\t.END\n';
const WAIT_LINE = 9;

test('the thread is announced once the program exists, so a running session can be paused', TEST_OPTIONS, async (t) => {
  const session = await Session.start(t);
  const program = scratch(t, 'echo.asm', ECHO);
  const input = path.join(path.dirname(program), 'keys.txt');
  fs.writeFileSync(input, 'ab');
  await session.dc.initializeRequest();
  await session.dc.launchRequest({ program, input, stopOnEntry: false, console: 'internalConsole' });
  const thread = await session.event('thread');
  assert.deepEqual(thread.body, { reason: 'started', threadId: 1 });
  await session.event('initialized');
  await session.dc.configurationDoneRequest();
  await until(() => session.stdout === 'ab', `the program echoes its input: ${JSON.stringify(session.stdout)}`);
  // It never stopped: the thread the event named is what a pause names.
  await session.dc.pauseRequest({ threadId: thread.body.threadId });
  const stop = await session.stopped();
  assert.equal(stop.reason, 'pause');
  assert.equal((await session.where()).line, WAIT_LINE);
});

test('restart keeps the input, pokes and profile of the launch, stopped or running', TEST_OPTIONS, async (t) => {
  const session = await Session.start(t);
  const program = scratch(t, 'echo.asm', ECHO);
  const input = path.join(path.dirname(program), 'keys.txt');
  fs.writeFileSync(input, 'ab');
  await session.launch({ program, input, poke: 'COUNT=5', profile: 'lc3tools' });
  await session.breakAt(program, WAIT_LINE);
  const runToWait = async (shown) => {
    assert.equal((await session.motion('continue')).reason, 'breakpoint');
    assert.equal(session.stdout, shown);
    assert.equal(await session.evaluate('COUNT'), '6 (x0006)', 'the poke, then one more');
  };
  await runToWait('ab');
  // Stopped: the run from the start reads the same input again.
  await session.dc.restartRequest({});
  assert.equal((await session.stopped()).reason, 'entry');
  assert.equal((await session.where()).line, 2);
  await runToWait('abab');
  assert.match(await session.evaluate('monitor profile', 'repl'), /lc3tools/);
  // Running (waiting in its loop): restart stops it and starts again.
  await session.setLineBreakpoints(program, []);
  await session.dc.continueRequest({ threadId: 1 });
  await session.dc.restartRequest({});
  assert.equal((await session.stopped()).reason, 'entry');
  await session.breakAt(program, WAIT_LINE);
  await runToWait('ababab');
  assert.deepEqual(session.stderr, [], 'no input ran out');
});

// Counts in R1 to 3, stores it; ends.
const COUNT = '\t.ORIG x3000\nMAIN\tAND R1, R1, #0\n\tADD R1, R1, #1\n\tADD R1, R1, #1\n'
  + '\tADD R1, R1, #1\n\tST R1, TOTAL\n\tHALT\nTOTAL\t.FILL 0\n\t.END\n';

test('a change in the past says the recorded future was discarded, and history has it', TEST_OPTIONS, async (t) => {
  const session = await Session.start(t);
  const program = scratch(t, 'count.asm', COUNT);
  await session.launch({ program });
  await session.breakAt(program, 6);
  assert.equal((await session.motion('continue')).reason, 'breakpoint');
  assert.equal(await session.evaluate('R1'), '3 (x0003)');
  const back = { granularity: 'instruction' };
  await session.motion('stepBack', back);
  await session.motion('stepBack', back);
  assert.equal((await session.where()).line, 4);
  assert.equal(await session.evaluate('R1'), '1 (x0001)');
  assert.equal(session.console, '');
  const [registers] = await session.scopes((await session.where()).frames[0].id);
  await session.dc.setVariableRequest({ variablesReference: registers.variablesReference, name: 'R1', value: '10' });
  await until(() => session.console !== '', 'a note on the Debug Console');
  assert.match(session.console, /changed at instruction 2: the recorded future after instruction 2 \(up to 4\) was discarded/);
  assert.equal(session.stdout, '', 'not among the program\'s output');
  // Forward runs live from the change; back and forth again shows it as history.
  await session.steps([['next', ['MAIN'], 5]]);
  assert.equal(await session.evaluate('R1'), '11 (x000B)');
  await session.motion('stepBack', back);
  assert.equal(await session.evaluate('R1'), '10 (x000A)');
  await session.motion('stepBack', back);
  assert.equal(await session.evaluate('R1'), '0 (x0000)');
  await session.motion('stepIn', back);
  assert.equal(await session.evaluate('R1'), '10 (x000A)', 'the change replayed');
  await session.motion('stepIn', back);
  assert.equal(await session.evaluate('R1'), '11 (x000B)');
  assert.equal(session.console.match(/was discarded/g).length, 1);
});

// MAIN calls SUB, which calls LEAF.
const CALLS = '\t.ORIG x3000\nMAIN\tLD R6, STACK\n\tJSR SUB\n\tADD R1, R1, #5\n\tHALT\n'
  + 'SUB\tADD R6, R6, #-1\n\tSTR R7, R6, #0\n\tJSR LEAF\n\tADD R1, R1, #3\n\tLDR R7, R6, #0\n'
  + '\tADD R6, R6, #1\n\tRET\nLEAF\tADD R1, R1, #7\n\tRET\nSTACK\t.FILL x4000\n\t.END\n';

test('step out backwards: to the call of the function, through nested calls', TEST_OPTIONS, async (t) => {
  const session = await Session.start(t);
  const program = scratch(t, 'calls.asm', CALLS);
  await session.launch({ program });
  await session.breakAt(program, 9);
  assert.equal((await session.motion('continue')).reason, 'breakpoint');
  await session.assertAt(['SUB', 'MAIN'], 9);
  // Back by line over LEAF, to SUB's call of it.
  await session.steps([['stepBack', ['SUB', 'MAIN'], 8]]);
  await session.dc.send('asmdbgStepOutBack', { threadId: 1 });
  assert.equal((await session.stopped()).reason, 'step');
  await session.assertAt(['MAIN'], 3);
  // The outermost frame: nothing to step out of.
  await assert.rejects(session.dc.send('asmdbgStepOutBack', { threadId: 1 }), /outermost frame/);
});
