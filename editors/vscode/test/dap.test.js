// `asmdbg dap` driven by a client this project did not write: the VS Code team's DebugClient
// (@vscode/debugadapter-testsupport), which speaks the protocol the way VS Code's own tests of
// debug adapters do. One test per game (LC-3 dots, MIPS four in a row, SimpleRISC tic-tac-toe):
// stop on entry, a line breakpoint, the stack, the registers in the machine's own names, the
// disassembly at the pc, stepping into, over and out of subroutines, and a data breakpoint that
// fires when a move is played through the program's console.
//
// The adapter is $ASMDBG, or target/debug/asmdbg of this checkout (`cargo build` makes it).
// A missing adapter fails every test here: it is never skipped.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
// The client, the recorded-events session and the helpers every DAP test file shares.
const {
  PROGRAMS, TEST_OPTIONS, mnemonic, assertProtocolAddresses, assertHit, Session,
} = require('./support');

test('LC-3 dots: entry, breakpoint, stack, registers, disassembly, steps, and the watch on CURRENT_PLAYER', TEST_OPTIONS, async (t) => {
  const session = await Session.start(t);
  const program = path.join(PROGRAMS, 'lc3', 'dots.asm');
  // The keys go in through the `input` attribute: dots reads one key at a time, and a line
  // typed in the debug console would bring a newline key with it.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'asmdbg-dap-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const keys = path.join(dir, 'keys.txt');
  fs.writeFileSync(keys, 'B0A1C1B2F6Q');

  const entry = await session.launch({ program, input: keys });
  assert.equal(entry.reason, 'entry');
  let at = await session.assertAt(['MAIN'], 86);
  assert.equal(at.ip, 'x3000');
  assert.equal(at.path, program);

  const scopes = await session.scopes(at.frames[0].id);
  assert.deepEqual(scopes.map((s) => s.name), ['Registers', 'Data']);
  const registers = await session.variables(scopes[0]);
  assert.deepEqual(
    registers.map((r) => r.name).slice(0, 10),
    ['R0', 'R1', 'R2', 'R3', 'R4', 'R5', 'R6', 'R7', 'PC', 'PSR'],
  );
  assert.equal(registers.find((r) => r.name === 'PC').value, 'x3000');

  const atEntry = await session.disassemble(at.ip, 2);
  assert.equal(mnemonic(atEntry[0]), 'JSR');
  assert.equal(atEntry[0].instruction, 'JSR DISPLAY_BOARD');
  assert.equal(atEntry[0].address, '0x3000', 'the native word address, in hex as the protocol reads it');
  assert.equal(atEntry[0].line, 86);
  assert.equal(atEntry[0].symbol, 'MAIN');

  // DisassembledInstruction.address must be hex after `0x` or decimal: VS Code's disassembly
  // view reads it with BigInt and drops an instruction whose address it cannot read.
  await t.test('disassemble addresses are 0x-hex or decimal (DAP)', () => {
    assertProtocolAddresses(atEntry);
  });

  // A breakpoint on DISPLAY_BOARD's first line, reached by its first call.
  const bp = await session.breakAt(program, 134);
  const hit = await session.motion('continue');
  assertHit(hit, 'breakpoint', bp);
  at = await session.assertAt(['DISPLAY_BOARD', 'MAIN'], 134);
  assert.equal(at.ip, 'x3025');

  // Over a line, out to MAIN, into DISPLAY_PROMPT and out again, over the GETC trap.
  await session.steps([
    ['next', ['DISPLAY_BOARD', 'MAIN'], 135],
    ['stepOut', ['MAIN'], 88],
    ['stepIn', ['DISPLAY_PROMPT', 'MAIN'], 185],
    ['stepOut', ['MAIN'], 89],
    ['next', ['MAIN'], 90],
  ]);
  assert.equal(await session.evaluate('R0', 'hover'), '66 (x0042)', 'GETC read the first key, B');

  // The watch on CURRENT_PLAYER: the move B0 completes no box, so the turn passes.
  await session.setLineBreakpoints(program, []);
  const watch = await session.watchWrites('CURRENT_PLAYER');
  assert.match(watch.info.description, /CURRENT_PLAYER/);
  const write = await session.motion('continue');
  assertHit(write, 'data breakpoint', watch.breakpoint);
  assert.match(write.description, /CURRENT_PLAYER/);
  assert.match(session.stdout, /Player 1, input a move/);
  assert.match(session.stdout, /B0/, 'the move was echoed');
  // As gdb shows a watchpoint: after the store, the new value in memory.
  assert.equal(await session.evaluate('CURRENT_PLAYER'), '2 (x0002)');
  // One instruction back: the store, not run yet.
  await session.motion('stepBack', { granularity: 'instruction' });
  at = await session.assertAt(['UPDATE_STATE', 'MAIN'], 452);
  const atStore = await session.disassemble(at.ip, 1);
  assert.equal(mnemonic(atStore[0]), 'ST');
  assert.equal(atStore[0].instruction, 'ST R1, CURRENT_PLAYER');
  assert.equal(await session.evaluate('CURRENT_PLAYER'), '1 (x0001)');

  // Q ends the game.
  await session.runToTheEnd();
  await session.endSession();
});

test('MIPS four in a row: entry, breakpoint, stack, $ registers, disassembly, steps, and the watch on turn', TEST_OPTIONS, async (t) => {
  const session = await Session.start(t);
  const program = path.join(PROGRAMS, 'mips', 'four_in_a_row.asm');

  const entry = await session.launch({ program });
  assert.equal(entry.reason, 'entry');
  let at = await session.assertAt(['main'], 131);
  assert.equal(at.ip, '0x00400000');
  assert.equal(at.path, program);

  const scopes = await session.scopes(at.frames[0].id);
  assert.deepEqual(scopes.map((s) => s.name), ['Registers', 'Floating point', 'Data']);
  const names = (await session.variables(scopes[0])).map((r) => r.name);
  assert.deepEqual(names.slice(0, 10), ['$zero', '$at', '$v0', '$v1', '$a0', '$a1', '$a2', '$a3', '$t0', '$t1']);
  for (const name of ['$sp', '$ra', 'pc', 'hi', 'lo']) {
    assert.ok(names.includes(name), `${name} in ${names}`);
  }
  assert.ok(!names.some((n) => /^\$f\d+$/.test(n)), 'the FPU has a scope of its own');
  const fpu = (await session.variables(scopes[1])).map((r) => r.name);
  assert.deepEqual(fpu.slice(0, 3), ['$f0', '$f1', '$f2']);
  assert.ok(fpu.includes('$f31'), `${fpu}`);

  // `la` is lui + ori.
  const atEntry = await session.disassemble(at.ip, 2);
  assert.equal(mnemonic(atEntry[0]), 'lui');
  assert.equal(atEntry[0].address, '0x00400000');
  assert.equal(atEntry[0].line, 131);
  assert.equal(mnemonic(atEntry[1]), 'ori');
  assertProtocolAddresses(atEntry);

  // A breakpoint on the call of check_win after a drop; the game's input typed in the debug
  // console: two names, then drop (1) in the centre column (4).
  const bp = await session.breakAt(program, 192);
  await session.dc.continueRequest({ threadId: 1 });
  for (const line of ['Alice', 'Bob', '1', '4']) {
    await session.type(line);
  }
  const hit = await session.stopped();
  assertHit(hit, 'breakpoint', bp);
  await session.assertAt(['main'], 192);
  assert.match(session.stdout, /Player 1 \(X\), enter your name/);
  assert.match(session.stdout, /Column \(1-7\)/);

  // Into check_win, over its first line, out to main's next line, over it.
  await session.steps([
    ['stepIn', ['check_win', 'main'], 675],
    ['next', ['check_win', 'main'], 676],
    ['stepOut', ['main'], 193],
    ['next', ['main'], 194],
  ]);

  // The watch on turn: answering the block question (0) ends Alice's move, switch_turn stores.
  await session.setLineBreakpoints(program, []);
  const watch = await session.watchWrites('turn');
  await session.dc.continueRequest({ threadId: 1 });
  await session.type('0');
  const write = await session.stopped();
  assertHit(write, 'data breakpoint', watch.breakpoint);
  assert.match(write.description, /\bturn\b/);
  assert.match(session.stdout, /Block your opponent's next move\?/);
  // After the store (as gdb shows a watchpoint): Bob's turn already.
  assert.equal(await session.evaluate('turn'), '1 (0x00000001)', "Bob's turn");
  await session.assertAt(['switch_turn', 'main'], 403);
  // One instruction back: the store, not run yet.
  await session.motion('stepBack', { granularity: 'instruction' });
  at = await session.assertAt(['switch_turn', 'main'], 402);
  const atStore = await session.disassemble(at.ip, 2);
  assert.equal(mnemonic(atStore[0]), 'sw');
  assert.equal(mnemonic(atStore[1]), 'jr');
  assertProtocolAddresses(atStore);
  assert.equal(await session.evaluate('turn'), '0 (0x00000000)');
  // Forward over it again: the data breakpoint again, after the store.
  assertHit(await session.motion('stepIn', { granularity: 'instruction' }), 'data breakpoint', watch.breakpoint);
  assert.equal(await session.evaluate('turn'), '1 (0x00000001)');
  await session.assertAt(['switch_turn', 'main'], 403);
  await session.steps([['stepOut', ['main'], 347]]);
});

test('SimpleRISC tic-tac-toe: entry, breakpoint, stack, registers, disassembly, steps, and the watch on the verdict', TEST_OPTIONS, async (t) => {
  const session = await Session.start(t);
  const program = path.join(PROGRAMS, 'simplerisc', 'tictactoe.asm');
  // Player 1 has a diagonal; SimpleRISC has no console, so the verifier's run is the move.
  const board = '1,2,0,0,0,0,2,1,0,0,0,0,1,2,1,0,0,0,2,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0';

  const entry = await session.launch({ program, isa: 'simplerisc', noMul: true, poke: [`1000=${board}`] });
  assert.equal(entry.reason, 'entry');
  let at = await session.assertAt(['.main'], 207);
  assert.equal(at.ip, '708', 'code offsets in decimal');
  assert.equal(at.path, program);

  const scopes = await session.scopes(at.frames[0].id);
  assert.deepEqual(scopes.map((s) => s.name), ['Registers', 'Data']);
  const registers = await session.variables(scopes[0]);
  assert.deepEqual(
    registers.map((r) => r.name),
    ['r0', 'r1', 'r2', 'r3', 'r4', 'r5', 'r6', 'r7', 'r8', 'r9', 'r10', 'r11', 'r12', 'r13', 'sp', 'ra', 'pc', 'flags'],
  );
  assert.equal(registers.find((r) => r.name === 'pc').value, '708');

  const atEntry = await session.disassemble(at.ip, 2);
  assert.equal(mnemonic(atEntry[0]), 'mov');
  assert.equal(atEntry[0].instruction, 'mov r11, -1');
  assert.equal(atEntry[0].address, '708');
  assert.equal(atEntry[0].symbol, '.main');
  assert.equal(atEntry[1].address, '712');
  assertProtocolAddresses(atEntry);

  // A breakpoint on `call haswin` for player 1.
  const bp = await session.breakAt(program, 248);
  const hit = await session.motion('continue');
  assertHit(hit, 'breakpoint', bp);
  await session.assertAt(['.main'], 248);

  // Into haswin, over its first line, out to .main, then over the call for player 2.
  await session.steps([
    ['stepIn', ['haswin', '.main'], 106],
    ['next', ['haswin', '.main'], 107],
    ['stepOut', ['.main'], 249],
    ['next', ['.main'], 250],
    ['next', ['.main'], 251],
    ['next', ['.main'], 252],
  ]);
  assert.equal(await session.evaluate('r12'), '1 (0x00000001)', 'player 1 wins');
  assert.equal(await session.evaluate('r1'), '0 (0x00000000)', 'player 2 does not');

  // The watch on the verdict word at 1144: the single store at .finish.
  await session.setLineBreakpoints(program, []);
  const watch = await session.watchWrites('1144');
  assert.equal(watch.info.dataId, '1144:4');
  const write = await session.motion('continue');
  assertHit(write, 'data breakpoint', watch.breakpoint);
  assert.match(write.description, /1144/);
  // After the store (as gdb shows a watchpoint), the last instruction: the PC is past the code,
  // in the slot gdb shows as end_of_program, at the store's line.
  at = await session.assertAt(['end_of_program'], 271);
  assert.equal(await session.evaluate('*1144'), '1 (0x00000001)', 'stored');
  // One instruction back: the store, not run yet.
  await session.motion('stepBack', { granularity: 'instruction' });
  at = await session.assertAt(['.main'], 271);
  const atStore = await session.disassemble(at.ip, 1);
  assert.equal(mnemonic(atStore[0]), 'st');
  assert.equal(atStore[0].instruction, 'st r11, 1144[r10]');
  assert.equal(await session.evaluate('*1144'), '0 (0x00000000)', 'not stored yet');
  assert.equal(await session.evaluate('r11'), '1 (0x00000001)');

  await session.runToTheEnd();
  assert.equal(await session.evaluate('*1144'), '1 (0x00000001)', 'the verdict: player 1 wins');
  await session.endSession();
});
