// Shared by the node tests of `asmdbg dap` (past.test.js): the adapter's path, and a Session
// that drives one adapter process with the VS Code team's DebugClient, recording every event of
// interest from the start (a stop can come before the request that caused it is answered).
// Taken from dap.test.js, which keeps its own copy for now.
'use strict';

const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { DebugClient } = require('@vscode/debugadapter-testsupport');

const REPO = path.resolve(__dirname, '..', '..', '..');
const PROGRAMS = path.join(REPO, 'programs');
// How long one response or event may take (the machine may be busy compiling).
const PATIENCE_MS = 10_000;
const TEST_OPTIONS = { timeout: 30_000 };

function adapterPath() {
  const adapter = process.env.ASMDBG || path.join(REPO, 'target', 'debug', 'asmdbg');
  assert.ok(
    fs.existsSync(adapter),
    `the debug adapter ${adapter} does not exist: run \`cargo build\` at ${REPO} or set ASMDBG to an asmdbg executable`,
  );
  return adapter;
}

// `source` written to a scratch directory (removed after test `t`) as `file`: its path.
function scratch(t, file, source) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'asmdbg-test-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const program = path.join(dir, file);
  fs.writeFileSync(program, source);
  return program;
}

function delay(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

// The first word of a disassembled instruction.
function mnemonic(instruction) {
  return instruction.instruction.trim().split(/\s+/)[0];
}

// DisassembledInstruction.address, as the protocol defines it: hex after `0x`, else decimal.
// VS Code's disassembly view reads it with BigInt() and drops an instruction it cannot read.
function assertProtocolAddresses(instructions) {
  for (const { address } of instructions) {
    assert.match(address, /^(0x[0-9a-fA-F]+|[0-9]+)$/, `${JSON.stringify(address)} is neither 0x-hex nor decimal`);
  }
}

// A stop for `reason` that names `breakpoint` (as setBreakpoints or setDataBreakpoints
// answered it) as the one hit.
function assertHit(stop, reason, breakpoint) {
  assert.equal(stop.reason, reason, JSON.stringify(stop));
  assert.deepEqual(stop.hitBreakpointIds, [breakpoint.id]);
}

// One adapter process with a DebugClient on its pipes. DebugClient.waitForEvent only hears
// events that arrive after it is called, and a stop can come before the request that caused it
// is answered, so every event of interest is recorded from the start and taken in order.
class Session {
  constructor(dc) {
    this.dc = dc;
    this.queued = [];
    this.waiters = [];
    this.stdout = '';
    // The stderr output events' texts, in order.
    this.stderr = [];
    // asmdbg's own notes (category console).
    this.console = '';
  }

  static async start(t) {
    const dc = new DebugClient(adapterPath(), 'dap', 'asmdbg');
    dc.defaultTimeout = PATIENCE_MS;
    const session = new Session(dc);
    for (const name of ['initialized', 'stopped', 'exited', 'terminated', 'thread']) {
      dc.on(name, (event) => session.record(event));
    }
    dc.on('output', (event) => {
      if (event.body.category === 'stdout') {
        session.stdout += event.body.output;
      } else if (event.body.category === 'stderr') {
        session.stderr.push(event.body.output);
      } else if (event.body.category === 'console') {
        session.console += event.body.output;
      }
    });
    // DebugClient(runtime, executable) spawns `runtime executable`: here `asmdbg dap`.
    await dc.start();
    t.after(() => session.close());
    return session;
  }

  record(event) {
    const i = this.waiters.findIndex((w) => w.name === event.event);
    if (i >= 0) {
      this.waiters.splice(i, 1)[0].resolve(event);
    } else {
      this.queued.push(event);
    }
  }

  // The next event named `name`.
  event(name) {
    const i = this.queued.findIndex((e) => e.event === name);
    if (i >= 0) {
      return Promise.resolve(this.queued.splice(i, 1)[0]);
    }
    return new Promise((resolve, reject) => {
      const waiter = { name, resolve };
      this.waiters.push(waiter);
      delay(PATIENCE_MS).then(() => {
        const at = this.waiters.indexOf(waiter);
        if (at >= 0) {
          this.waiters.splice(at, 1);
          const unread = this.queued.map((e) => e.event).join(', ') || 'none';
          reject(new Error(`no ${name} event in ${PATIENCE_MS} ms (events not taken: ${unread}; program output ends ${JSON.stringify(this.stdout.slice(-200))})`));
        }
      });
    });
  }

  async stopped() {
    return (await this.event('stopped')).body;
  }

  // initialize, launch with a stop on entry and the debug console as the program's console,
  // configurationDone: the body of the entry stop.
  async launch(args) {
    await this.dc.initializeRequest();
    // `initialized` may come after initialize or after launch (when the adapter is ready for
    // the configuration): it is recorded either way.
    await this.dc.launchRequest({ ...args, stopOnEntry: true, console: 'internalConsole' });
    await this.event('initialized');
    await this.dc.configurationDoneRequest();
    return this.stopped();
  }

  // A motion (continue, next, stepIn, stepOut) and the stop that ends it.
  async motion(command, args = {}) {
    await this.dc.send(command, { threadId: 1, ...args });
    return this.stopped();
  }

  // The stack: frames, their names, and frame 0's line, instruction pointer and file.
  async where() {
    const frames = (await this.dc.stackTraceRequest({ threadId: 1 })).body.stackFrames;
    return {
      frames,
      names: frames.map((f) => f.name),
      line: frames[0].line,
      ip: frames[0].instructionPointerReference,
      path: frames[0].source && frames[0].source.path,
    };
  }

  // Frame 0 is at `line` of the stack `names` (innermost first): the stack.
  async assertAt(names, line, message = '') {
    const at = await this.where();
    assert.deepEqual(at.names, names, message);
    assert.equal(at.line, line, message);
    return at;
  }

  // Steps by line, each [request, the stack's names after it, frame 0's line after it].
  async steps(plan) {
    for (const [command, names, line] of plan) {
      const stop = await this.motion(command);
      assert.equal(stop.reason, 'step', `${command}: ${JSON.stringify(stop)}`);
      await this.assertAt(names, line, `after ${command}`);
    }
  }

  async scopes(frameId) {
    return (await this.dc.scopesRequest({ frameId })).body.scopes;
  }

  async variables(scope) {
    return (await this.dc.variablesRequest({ variablesReference: scope.variablesReference })).body.variables;
  }

  async evaluate(expression, context = 'watch') {
    return (await this.dc.evaluateRequest({ expression, context })).body.result;
  }

  // Text typed in the debug console: `> TEXT` is the program's input (the adapter adds Enter
  // for a machine that reads lines; a machine that reads keys gets the keys).
  async type(text) {
    const result = await this.evaluate(`> ${text}`, 'repl');
    assert.ok(result.includes(text), `typing ${text}: ${result}`);
  }

  async disassemble(memoryReference, instructionCount) {
    const body = (await this.dc.disassembleRequest({ memoryReference, instructionCount })).body;
    assert.equal(body.instructions.length, instructionCount, 'disassemble returns exactly instructionCount instructions');
    return body.instructions;
  }

  async setLineBreakpoints(program, lines) {
    const body = (await this.dc.setBreakpointsRequest({
      source: { path: program },
      breakpoints: lines.map((line) => ({ line })),
    })).body;
    return body.breakpoints;
  }

  // One line breakpoint in `program`, which must land on that very line.
  async breakAt(program, line) {
    const [bp] = await this.setLineBreakpoints(program, [line]);
    assert.equal(bp.verified, true, JSON.stringify(bp));
    assert.equal(bp.line, line);
    return bp;
  }

  // A write watch on what dataBreakpointInfo names `name`: its info and the breakpoint.
  async watchWrites(name) {
    const info = (await this.dc.dataBreakpointInfoRequest({ name })).body;
    assert.equal(typeof info.dataId, 'string', `dataBreakpointInfo ${name}: ${info.description}`);
    assert.ok(info.accessTypes.includes('write'), JSON.stringify(info));
    const set = (await this.dc.setDataBreakpointsRequest({
      breakpoints: [{ dataId: info.dataId, accessType: 'write' }],
    })).body.breakpoints;
    assert.equal(set.length, 1);
    assert.equal(set[0].verified, true, JSON.stringify(set[0]));
    return { info, breakpoint: set[0] };
  }

  async clearDataBreakpoints() {
    await this.dc.setDataBreakpointsRequest({ breakpoints: [] });
  }

  // The end with history on: a stop saying the program ended, then continue ends the session.
  async runToTheEnd() {
    await this.clearDataBreakpoints();
    const end = await this.motion('continue');
    assert.equal(end.reason, 'exit', JSON.stringify(end));
    assert.match(end.description, /ended/);
    return end;
  }

  async endSession(exitCode = 0) {
    await this.dc.continueRequest({ threadId: 1 });
    assert.equal((await this.event('exited')).body.exitCode, exitCode);
    await this.event('terminated');
  }

  // disconnect, and the adapter's end whether it answers or not.
  async close() {
    // DebugClient keeps its child here; stop() waits for the disconnect response forever when
    // the adapter no longer answers.
    const child = this.dc._adapterProcess;
    await Promise.race([this.dc.stop(), delay(3000)]);
    if (child && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
    }
  }
}

module.exports = {
  REPO, PROGRAMS, PATIENCE_MS, TEST_OPTIONS, adapterPath, delay, scratch, mnemonic,
  assertProtocolAddresses, assertHit, Session,
};
