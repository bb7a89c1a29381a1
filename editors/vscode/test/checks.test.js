// The debugging checks in VS Code, through `asmdbg dap` driven by the VS Code team's
// DebugClient (issue 43): the Breakpoints pane's check boxes are the adapter's exception
// filters (one per check, on by default); a finding stops with reason `exception` and its
// warning, which exceptionInfo answers too (what VS Code shows in its exception widget);
// unchecking a filter turns its check off.
//
// The adapter is $ASMDBG, or target/debug/asmdbg of this checkout (`cargo build` makes it).
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const { TEST_OPTIONS, scratch, Session } = require('./support');

// PRINT uses PUTS, whose TRAP overwrites R7: PRINT's RET never gets back.
const TRAP_IN_A_SUBROUTINE = '\t.ORIG x3000\n\tJSR PRINT\n\tHALT\nPRINT\tLEA R0, MSG\n\tPUTS\n'
  + '\tRET\nMSG\t.STRINGZ "hi"\n\t.END\n';

test('the checks are exception filters, on by default', TEST_OPTIONS, async (t) => {
  const session = await Session.start(t);
  const init = await session.dc.initializeRequest();
  const filters = init.body.exceptionBreakpointFilters;
  assert.deepEqual(filters.map((f) => f.filter),
    ['callee-saved', 'return-address', 'uninitialised', 'stack', 'code-as-data']);
  assert.ok(filters.every((f) => f.default === true && f.label && f.description));
});

test('a finding is an exception stop with its warning; unchecked, the program runs on', TEST_OPTIONS, async (t) => {
  const session = await Session.start(t);
  const program = scratch(t, 'trap.asm', TRAP_IN_A_SUBROUTINE);
  await session.launch({ program });
  const stop = await session.motion('continue');
  assert.equal(stop.reason, 'exception', JSON.stringify(stop));
  assert.match(stop.text, /trap\.asm:5:2: warning\[return-address\]: this call overwrites R7, which holds PRINT's return address/);
  const info = await session.dc.send('exceptionInfo', { threadId: 1 });
  assert.equal(info.body.exceptionId, 'return-address');
  assert.match(info.body.description, /PRINT's return at .*trap\.asm:6 goes to x3004/);
  assert.ok(session.stderr.some((line) => line.includes('warning[return-address]')));

  // The return-address check unchecked in the Breakpoints pane: a restart runs into the
  // program's endless return instead (paused here).
  await session.dc.setExceptionBreakpointsRequest({ filters: ['callee-saved', 'uninitialised', 'stack', 'code-as-data'] });
  await session.dc.send('restart', {});
  assert.equal((await session.stopped()).reason, 'entry');
  await session.dc.send('continue', { threadId: 1 });
  await new Promise((resolve) => setTimeout(resolve, 300));
  await session.dc.send('pause', { threadId: 1 });
  assert.equal((await session.stopped()).reason, 'pause');
});
