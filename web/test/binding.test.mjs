// The WebAssembly build of the session (web/pkg, as scripts/web makes it) under node, driven as
// the page's worker drives it: DAP messages in, poll, bursts. What runs here is the module the
// page loads, not the native build `cargo test -p asmdbg-web` tests.

import test from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PKG, ROOT, missing } from './support.mjs';

const read = (path) => readFileSync(join(ROOT, path), 'utf8');

let module;
/** The bound module, or undefined (after failing or skipping `t`) when it was not built. */
async function bound(t) {
  const wasm = join(PKG, 'asmdbg_web_bg.wasm');
  if (!existsSync(wasm)) {
    missing(t, `${wasm} is not built (scripts/web --build builds it)`);
    return undefined;
  }
  if (!module) {
    const glue = await import(join(PKG, 'asmdbg_web.js'));
    const exports = glue.initSync({ module: readFileSync(wasm) });
    module = { WebSession: glue.WebSession, memory: exports.memory };
  }
  return module;
}

/** A session with `files`, initialized, and what it said. */
class Client {
  constructor(WebSession, files) {
    this.session = new WebSession();
    for (const [name, text] of Object.entries(files)) {
      this.session.set_file(name, text);
    }
    this.seq = 0;
    this.seen = [];
    this.request('initialize', { adapterID: 'asmdbg' });
  }

  request(command, args = {}) {
    const seq = ++this.seq;
    this.session.send(JSON.stringify({ seq, type: 'request', command, arguments: args }));
    return this.until((m) => m.type === 'response' && m.request_seq === seq);
  }

  /** Polls and runs bursts, as the worker does, until a message matches. */
  until(want, { wait = false } = {}) {
    return this.untilAsync(want, wait);
  }

  untilAsync(want, wait) {
    const deadline = Date.now() + 60_000;
    const step = () => {
      while (Date.now() < deadline) {
        const poll = JSON.parse(this.session.poll());
        let found;
        for (const message of poll.messages) {
          this.seen.push(message);
          found ??= want(message) ? message : undefined;
        }
        if (found) {
          return { found };
        }
        if (poll.run) {
          this.session.run_burst();
        } else if (wait && poll.wakeMs !== undefined) {
          return { wakeMs: poll.wakeMs };
        } else {
          throw new Error(`idle without the message; seen ${JSON.stringify(this.seen.slice(-4))}`);
        }
      }
      throw new Error('no such message within a minute');
    };
    if (!wait) {
      return step().found;
    }
    return (async () => {
      for (;;) {
        const result = step();
        if (result.found) {
          return result.found;
        }
        await new Promise((resolve) => setTimeout(resolve, result.wakeMs));
      }
    })();
  }

  console() {
    return this.seen
      .filter((m) => m.event === 'output' && m.body.category === 'stdout')
      .map((m) => m.body.output)
      .join('');
  }

  run(launch) {
    const launched = this.request('launch', { stopOnEntry: false, ...launch });
    assert.equal(launched.success, true, launched.message);
    this.request('configurationDone');
    return this.until((m) => m.event === 'stopped' && m.body.reason === 'exit');
  }
}

test('nim.asm plays the sample game to its transcript', async (t) => {
  const m = await bound(t);
  if (!m) return;
  const client = new Client(m.WebSession, {
    'nim.asm': read('programs/lc3/nim.asm'),
    'nim-sample.in': read('tests/programs/lc3/nim-sample.in'),
  });
  client.run({ program: 'nim.asm', input: 'nim-sample.in' });
  assert.equal(client.console(), read('tests/programs/lc3/nim-sample.out'));
});

test('a MIPS .include and a SimpleRISC program come from the page\'s files', async (t) => {
  const m = await bound(t);
  if (!m) return;
  const mips = new Client(m.WebSession, {
    'main.asm': '.data\nmsg: .asciiz "hi"\n.text\n.include "lib/print.asm"\nli $v0, 10\nsyscall\n',
    'lib/print.asm': 'la $a0, msg\nli $v0, 4\nsyscall\n',
  });
  mips.run({ program: 'main.asm' });
  assert.equal(mips.console(), 'hi');
  const simplerisc = new Client(m.WebSession, { 'sum.asm': '.main:\n\tmov r1, 20\n\tadd r2, r1, 22\n\t.print r2\n' });
  simplerisc.run({ program: 'sum.asm' });
  assert.match(simplerisc.console(), /42/);
});

test('assembly errors come back with file, line and column', async (t) => {
  const m = await bound(t);
  if (!m) return;
  const client = new Client(m.WebSession, { 'bad.asm': '.text\nmain: addi $t0, $t0\n' });
  const launched = client.request('launch', { program: 'bad.asm' });
  assert.equal(launched.success, false);
  assert.match(launched.message, /^bad\.asm:2:7: error: "addi": Too few or incorrectly formatted operands/);
  // Text that is not a message is reported, and the session goes on.
  client.session.send('not json');
  const skipped = client.until((m) => m.event === 'output');
  assert.match(skipped.body.output, /skipped a message/);
  assert.equal(client.request('threads').success, true);
});

test('the browser\'s clock: MIPS time and a real-time sleep', async (t) => {
  const m = await bound(t);
  if (!m) return;
  // syscall 30 (time) before and after syscall 32 (sleep 60 ms), the difference printed.
  const program = `.text
li $v0, 30
syscall
move $s0, $a0
li $v0, 32
li $a0, 60
syscall
li $v0, 30
syscall
subu $a0, $a0, $s0
li $v0, 1
syscall
li $v0, 10
syscall
`;
  const client = new Client(m.WebSession, { 'sleep.asm': program });
  assert.equal(client.request('launch', { program: 'sleep.asm', stopOnEntry: false }).success, true);
  client.request('configurationDone');
  await client.until((msg) => msg.event === 'stopped' && msg.body.reason === 'exit', { wait: true });
  const slept = Number(client.console());
  assert.ok(slept >= 60 && slept < 5000, `slept ${slept} ms`);
});

test('a 10^8-instruction history stays within its memory cap', async (t) => {
  const m = await bound(t);
  if (!m) return;
  // Stores sweep a 1 MiB buffer, so every checkpoint holds about 1 MiB of changed pages.
  const program = `.data
buf: .space 1048576
.text
main:
  la $t1, buf
  li $t3, 16666667
  li $t5, 1048576
  move $t0, $zero
loop:
  addu $t4, $t1, $t0
  sw $t3, 0($t4)
  addiu $t0, $t0, 4
  bne $t0, $t5, skip
  move $t0, $zero
skip:
  addiu $t3, $t3, -1
  bnez $t3, loop
  li $v0, 10
  syscall
`;
  const client = new Client(m.WebSession, { 'sweep.asm': program });
  client.run({ program: 'sweep.asm', historyMb: 4 });
  const history = client.request('evaluate', { expression: 'monitor history', context: 'repl' }).body.result;
  const [, frontier] = /to (\d+)/.exec(history);
  assert.ok(Number(frontier) >= 1e8, history);
  const [, used, cap] = /memory ([\d.]+) MiB of (\d+) MiB/.exec(history).map(Number);
  assert.equal(cap, 4);
  assert.ok(used <= cap, history);
  assert.ok(m.memory.buffer.byteLength < 256 * 2 ** 20, `wasm memory ${m.memory.buffer.byteLength} bytes`);
  // The whole run stays reachable: back to an instruction near the start.
  const back = client.request('evaluate', { expression: 'monitor goto 1000', context: 'repl' }).body.result;
  assert.match(back, /^at instruction 1000;/);
});

test('the launch\'s speed holds the run to its pace on the browser\'s clock', async (t) => {
  const m = await bound(t);
  if (!m) return;
  const client = new Client(m.WebSession, { 'loop.asm': '.ORIG x3000\nLOOP BR LOOP\n.END\n' });
  // Two instructions a second: a burst runs one, then the session asks to be woken later
  // instead of running (the pace reads performance.now(), std's clock has none on wasm32).
  assert.equal(client.request('launch', { program: 'loop.asm', stopOnEntry: false, speed: '2' }).success, true);
  client.request('configurationDone');
  const wakes = [];
  let bursts = 0;
  while (wakes.length < 2) {
    const poll = JSON.parse(client.session.poll());
    if (poll.run) {
      client.session.run_burst();
      bursts++;
      assert.ok(bursts <= 4, `the paced run ran ${bursts} bursts without waiting`);
    } else {
      assert.equal(typeof poll.wakeMs, 'number', JSON.stringify(poll));
      assert.ok(poll.wakeMs <= 500, `wake in ${poll.wakeMs} ms`);
      wakes.push(poll.wakeMs);
      await new Promise((resolve) => setTimeout(resolve, poll.wakeMs + 1));
    }
  }
  client.request('pause', { threadId: 1 });
  const when = client.request('evaluate', { expression: 'monitor when', context: 'repl' }).body.result;
  const [, count] = /instruction (\d+)/.exec(when);
  assert.ok(Number(count) >= 1 && Number(count) <= 4, when);
});
