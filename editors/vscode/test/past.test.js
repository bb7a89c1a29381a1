// `asmdbg dap` in recorded history, driven by the VS Code team's DebugClient (issue 28): forward
// motions from a breakpoint reached backwards run on; a data breakpoint stops after the write
// going forwards and before it going backwards; going on from a guest fault ends the program
// (its message on stderr); the program's end is an `exit` stop in the source of the last line.
//
// The adapter is $ASMDBG, or target/debug/asmdbg of this checkout (`cargo build` makes it).
// A missing adapter fails every test here: it is never skipped.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const { TEST_OPTIONS, assertHit, scratch, Session } = require('./support');

// A small program per machine: a loop of three passes counting in a register, the count stored
// once after it, and the end (see tests/dap_past.rs for the same programs).
const CASES = [
  {
    name: 'LC-3',
    file: 'count.asm',
    source: '\t.ORIG x3000\n\tAND R1, R1, #0\n\tADD R2, R1, #3\nLOOP\tADD R1, R1, #1\n\tADD R2, R2, #-1\n\tBRp LOOP\n\tST R1, TOTAL\n\tHALT\nTOTAL\t.FILL #0\n\t.END\n',
    launch: {},
    loopLine: 4,
    storeLine: 7,
    afterStore: 8,
    counter: 'R1',
    stored: 'TOTAL',
    dataName: 'TOTAL',
    values: ['0 (x0000)', '1 (x0001)', '2 (x0002)', '3 (x0003)'],
  },
  {
    name: 'MIPS',
    file: 'count.s',
    source: '.data\ntotal:\t.word 0\n.text\nmain:\tli $t1, 0\n\tli $t2, 3\nloop:\taddi $t1, $t1, 1\n\taddi $t2, $t2, -1\n\tbgtz $t2, loop\n\tsw $t1, total\n\tli $v0, 10\n\tsyscall\n',
    launch: {},
    loopLine: 6,
    storeLine: 9,
    afterStore: 10,
    counter: '$t1',
    stored: 'total',
    dataName: 'total',
    values: ['0 (0x00000000)', '1 (0x00000001)', '2 (0x00000002)', '3 (0x00000003)'],
  },
  {
    name: 'SimpleRISC',
    file: 'count.asm',
    source: '.main:\n\tmov r1, 0\n\tmov r2, 3\n.loop:\n\tadd r1, r1, 1\n\tsub r2, r2, 1\n\tcmp r2, 0\n\tbgt .loop\n\tmov r4, 0\n\tst r1, 1000[r4]\n\tmov r3, 7\n',
    launch: { isa: 'simplerisc' },
    loopLine: 5,
    storeLine: 10,
    afterStore: 11,
    counter: 'r1',
    stored: '*1000',
    dataName: '1000',
    values: ['0 (0x00000000)', '1 (0x00000001)', '2 (0x00000002)', '3 (0x00000003)'],
  },
];

async function line(session) {
  return (await session.where()).line;
}

for (const c of CASES) {
  test(`${c.name}: continue, next and an instruction step from a breakpoint reached backwards run on`, TEST_OPTIONS, async (t) => {
    const session = await Session.start(t);
    const program = scratch(t, c.file, c.source);
    await session.launch({ program, ...c.launch });
    const bp = await session.breakAt(program, c.loopLine);
    for (let pass = 0; pass < 3; pass++) {
      assertHit(await session.motion('continue'), 'breakpoint', bp);
      assert.equal(await session.evaluate(c.counter), c.values[pass]);
    }
    const backToTheSecondHit = async () => {
      assertHit(await session.motion('reverseContinue'), 'breakpoint', bp);
      assert.equal(await session.evaluate(c.counter), c.values[1]);
      assert.equal(await line(session), c.loopLine);
    };
    await backToTheSecondHit();
    assertHit(await session.motion('continue'), 'breakpoint', bp);
    assert.equal(await session.evaluate(c.counter), c.values[2], 'continue reaches the third hit');
    for (const [command, args] of [['next', {}], ['stepIn', { granularity: 'instruction' }]]) {
      await backToTheSecondHit();
      const stop = await session.motion(command, args);
      assert.equal(stop.reason, 'step', `${command}: ${JSON.stringify(stop)}`);
      assert.equal(await line(session), c.loopLine + 1, command);
      assert.equal(await session.evaluate(c.counter), c.values[2], command);
    }
  });

  test(`${c.name}: a data breakpoint stops after the write going forwards, before it going backwards`, TEST_OPTIONS, async (t) => {
    const session = await Session.start(t);
    const program = scratch(t, c.file, c.source);
    await session.launch({ program, ...c.launch });
    const { breakpoint } = await session.watchWrites(c.dataName);
    const after = async (stop, how) => {
      assertHit(stop, 'data breakpoint', breakpoint);
      assert.equal(await line(session), c.afterStore, how);
      assert.equal(await session.evaluate(c.stored), c.values[3], how);
    };
    const before = async (stop) => {
      assertHit(stop, 'data breakpoint', breakpoint);
      assert.equal(await line(session), c.storeLine);
      assert.equal(await session.evaluate(c.stored), c.values[0]);
    };
    await after(await session.motion('continue'), 'continue');
    await before(await session.motion('reverseContinue'));
    await after(await session.motion('next'), 'next');
    await before(await session.motion('reverseContinue'));
    await after(await session.motion('stepIn', { granularity: 'instruction' }), 'stepIn');
    const end = await session.motion('continue');
    assert.equal(end.reason, 'exit', JSON.stringify(end));
    await before(await session.motion('reverseContinue'));
  });
}

const FAULTS = [
  {
    name: 'LC-3',
    file: 'ill.asm',
    source: '\t.ORIG x3000\n\tAND R0, R0, #0\n\t.FILL xD000\n\t.END\n',
    launch: { profile: 'lc3sim' },
    message: 'Illegal instruction at x3001!',
    exitCode: 1,
  },
  {
    name: 'MIPS',
    file: 'segv.s',
    source: '.text\nmain:\tli $t0, 0\n\tlw $t1, 0($t0)\n\tli $v0, 10\n\tsyscall\n',
    launch: {},
    message: 'Runtime exception at 0x00400004: address out of range 0x00000000',
    // MARS ends a program with a runtime error with status 0.
    exitCode: 0,
  },
  {
    name: 'SimpleRISC',
    file: 'div.asm',
    source: '.main:\n\tmov r1, 5\n\tdiv r2, r1, r0\n\tmov r3, 1\n',
    launch: { isa: 'simplerisc' },
    message: 'Cannot divide by a 0',
    exitCode: 1,
  },
];

for (const f of FAULTS) {
  test(`${f.name}: a fault is said once on stderr per stop, and continuing from it ends the program`, TEST_OPTIONS, async (t) => {
    const session = await Session.start(t);
    const program = scratch(t, f.file, f.source);
    // The programs break conventions on the way to their faults (r0 never set, data run as
    // code): the faults, not the debugging checks, are tested.
    await session.launch({ program, noChecks: true, ...f.launch });
    const fault = async () => {
      const stop = await session.motion('continue');
      assert.equal(stop.reason, 'exception', JSON.stringify(stop));
      assert.ok(stop.description.includes(f.message), stop.description);
      assert.equal(session.stderr.length, 1, JSON.stringify(session.stderr));
      assert.ok(session.stderr[0].includes(f.message), session.stderr[0]);
      session.stderr = [];
    };
    await fault();
    // Back one instruction and on again: the same fault, a new stop.
    assert.equal((await session.motion('stepBack', { granularity: 'instruction' })).reason, 'step');
    await fault();
    await session.endSession(f.exitCode);
    assert.deepEqual(session.stderr, []);
    assert.ok(!session.stdout.includes(f.message), 'the fault is not program output');
  });
}

test('SimpleRISC: the end of a program that ran off its code is an exit stop at the last line', TEST_OPTIONS, async (t) => {
  const session = await Session.start(t);
  const c = CASES[2];
  const program = scratch(t, c.file, c.source);
  await session.launch({ program, ...c.launch });
  const end = await session.motion('continue');
  assert.equal(end.reason, 'exit', JSON.stringify(end));
  assert.equal(end.description, 'The program ended (exit code 0): step back to see how, or continue to end the session');
  const at = await session.where();
  // The slot after the code, as gdb names it, at the last line.
  assert.equal(at.names[0], 'end_of_program');
  assert.equal(at.line, 11);
  assert.equal(at.path, program);
  await session.endSession();
});
