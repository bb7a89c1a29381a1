// The Web Worker that runs asmdbg: the DAP session and the machines in WebAssembly
// (web/src/lib.rs). The page posts DAP requests and the program's files; the worker posts
// back the session's messages. A running program runs in bursts (about 0.1 M instructions
// each) for at most SLICE_MS at a time, then the worker yields to its event loop, so a
// `pause` (or any request) is heard within a few milliseconds and the page never waits on
// the machine.

import init, { WebSession } from '../pkg/asmdbg_web.js';
import type { ToWorker, FromWorker } from './messages';

/** Longest run between two looks at the page's messages. */
const SLICE_MS = 8;

const post = (message: FromWorker) => (self as unknown as Worker).postMessage(message);

let session: WebSession | undefined;
let files: Record<string, string> = {};
let wakeTimer: ReturnType<typeof setTimeout> | undefined;

// An immediate, unclamped yield (setTimeout(0) is clamped to 4 ms when nested).
const channel = new MessageChannel();
let scheduled = false;
channel.port1.onmessage = () => {
  scheduled = false;
  pump();
};
function schedule() {
  if (!scheduled) {
    scheduled = true;
    channel.port2.postMessage(0);
  }
}

interface Poll {
  messages: unknown[];
  run: boolean;
  wakeMs?: number;
  ended: boolean;
}

/** Runs the session until it has nothing to do or its time slice is over. */
function pump() {
  if (!session) {
    return;
  }
  const started = performance.now();
  try {
    for (;;) {
      const poll = JSON.parse(session.poll()) as Poll;
      if (poll.messages.length > 0) {
        post({ kind: 'dap', messages: poll.messages });
      }
      if (wakeTimer !== undefined) {
        clearTimeout(wakeTimer);
        wakeTimer = undefined;
      }
      if (!poll.run) {
        if (poll.wakeMs !== undefined && !poll.ended) {
          wakeTimer = setTimeout(pump, Math.max(0, poll.wakeMs));
        }
        return;
      }
      session.run_burst();
      if (performance.now() - started >= SLICE_MS) {
        schedule();
        return;
      }
    }
  } catch (error) {
    // A panic in the session (a bug): say so and start over with a fresh one.
    post({ kind: 'crashed', message: String(error) });
    session = undefined;
  }
}

function fresh() {
  session?.free();
  session = new WebSession();
  for (const [name, text] of Object.entries(files)) {
    session.set_file(name, text);
  }
}

/** What the page posted, handled once the module is ready. */
function handle(message: ToWorker, wasm: { memory: WebAssembly.Memory }) {
  switch (message.kind) {
    case 'files':
      files = message.files;
      session?.clear_files();
      for (const [name, text] of Object.entries(files)) {
        session?.set_file(name, text);
      }
      break;
    case 'new-session':
      fresh();
      break;
    case 'memory':
      // The WebAssembly memory's size (scripts/bench reports it after a long run).
      post({ kind: 'memory', bytes: wasm.memory.buffer.byteLength });
      return;
    case 'dap':
      if (!session) {
        fresh();
      }
      session!.send(JSON.stringify(message.message));
      break;
  }
  pump();
}

// Messages that come while the module loads wait for it (a worker drops messages that arrive
// before it listens).
const early: ToWorker[] = [];
self.onmessage = (event: MessageEvent<ToWorker>) => early.push(event.data);

async function start() {
  const wasm = await init({ module_or_path: new URL('asmdbg_web_bg.wasm', self.location.href) });
  self.onmessage = (event: MessageEvent<ToWorker>) => handle(event.data, wasm);
  for (const message of early.splice(0)) {
    handle(message, wasm);
  }
  post({ kind: 'ready' });
}

start().catch((error) => post({ kind: 'crashed', message: `cannot start asmdbg: ${error}` }));
