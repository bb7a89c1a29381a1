// Benchmark of the page's interpreter (numbers, not pass/fail; run by scripts/bench): each
// program runs in the page's own Web Worker (dist/worker.js, the WebAssembly session) in
// headless Chromium, driven with the DAP messages the page sends, from configurationDone to the
// program's end. Printed: instructions, seconds and M instructions/s, with time travel's
// recording on (as the page runs programs) and off (as `asmdbg run` does), then the recorded
// history's memory and the WebAssembly memory after the run. Then the page's responsiveness
// while a program runs, through its own buttons: the longest gap in the page's event loop and
// how long Pause takes to stop the program (the target: within 50 ms).
//
//   node bench.mjs FILE ISA [FILE ISA ...]      (the page must be built: scripts/web --build)

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from './serve.mjs';
import { findChromium } from './test/support.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
if (args.length === 0 || args.length % 2 !== 0) {
  console.error('usage: node bench.mjs FILE ISA [FILE ISA ...]');
  process.exit(2);
}
const executablePath = findChromium();
if (!executablePath) {
  console.error('web/bench.mjs: needs chromium (apt-get install chromium)');
  process.exit(1);
}

const { chromium } = await import('playwright-core');
const { url, server } = await serve(join(here, 'dist'), 0);
const profile = mkdtempSync(join(tmpdir(), 'asmdbg-bench-chromium-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath,
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
});
const page = await context.newPage();
page.on('console', (m) => console.error('page:', m.text()));
page.on('pageerror', (e) => console.error('page error:', e.message));
await page.goto(`${url}index.html`);

/** Runs `source` in a fresh worker of the page; what the run took. */
function runInWorker(name, source, launch) {
  return page.evaluate(
    async ({ name, source, launch }) => {
      const worker = new Worker('worker.js', { type: 'module' });
      const waiting = [];
      const next = (want) => new Promise((resolve) => waiting.push({ want, resolve }));
      worker.onmessage = (event) => {
        const data = event.data;
        const messages = data.kind === 'dap' ? data.messages : [data];
        for (const message of messages) {
          const i = waiting.findIndex((w) => w.want(message));
          if (i >= 0) {
            waiting.splice(i, 1)[0].resolve(message);
          }
        }
      };
      await next((m) => m.kind === 'ready');
      let seq = 0;
      const request = (command, args = {}) => {
        const s = ++seq;
        worker.postMessage({ kind: 'dap', message: { seq: s, type: 'request', command, arguments: args } });
        return next((m) => m.type === 'response' && m.request_seq === s);
      };
      worker.postMessage({ kind: 'files', files: { [name]: source } });
      await request('initialize', { adapterID: 'asmdbg' });
      const launched = await request('launch', { program: name, stopOnEntry: false, ...launch });
      if (!launched.success) {
        throw new Error(launched.message);
      }
      // The end: a stop there (history on: it can be stepped back from), or the end itself.
      const ended = next((m) => m.event === 'exited' || (m.event === 'stopped' && m.body.reason === 'exit'));
      const started = performance.now();
      await request('configurationDone');
      await ended;
      const seconds = (performance.now() - started) / 1000;
      const when = await request('evaluate', { expression: 'monitor when', context: 'repl' });
      const history = await request('evaluate', { expression: 'monitor history', context: 'repl' });
      worker.postMessage({ kind: 'memory' });
      const memory = await next((m) => m.kind === 'memory');
      worker.terminate();
      return {
        instructions: Number(/instruction (\d+)/.exec(when.body.result)[1]),
        seconds,
        history: history.body.result.replace('\n', '; '),
        wasmMiB: memory.bytes / 2 ** 20,
      };
    },
    { name, source, launch },
  );
}

for (let i = 0; i < args.length; i += 2) {
  const file = args[i];
  const isa = args[i + 1];
  const source = readFileSync(file, 'utf8');
  for (const [label, launch] of [
    ['history off', { noHistory: true }],
    ['history on ', {}],
  ]) {
    const rates = [];
    let last;
    for (let run = 0; run < 3; run++) {
      last = await runInWorker(basename(file), source, { isa, ...launch });
      rates.push(last.instructions / last.seconds / 1e6);
    }
    rates.sort((a, b) => a - b);
    console.log(
      `  wasm in Chromium, ${label}: ${basename(file)}: ${last.instructions} instructions, ` +
        `median ${rates[1].toFixed(1)} M instructions/s (runs: ${rates.map((r) => r.toFixed(1)).join(', ')})`,
    );
    if (!launch.noHistory) {
      console.log(`    after the run: ${last.history}; WebAssembly memory ${last.wasmMiB.toFixed(1)} MiB`);
    }
  }
}

/** The page itself running an endless loop: its event loop's gaps and Pause's latency. */
async function responsiveness() {
  const loop = '.ORIG x3000\nLOOP ADD R0, R0, #1\nBRnzp LOOP\n.END\n';
  const tab = await context.newPage();
  tab.on('pageerror', (e) => console.error('page error:', e.message));
  await tab.goto(`${url}index.html#src=${Buffer.from(loop).toString('base64url')}&name=loop.asm`);
  const button = (name) => tab.getByRole('button', { name, exact: true });
  const status = (text) => tab.getByRole('status').filter({ hasText: text }).waitFor({ timeout: 30_000 });
  await button('Run').click();
  await status(/Running/);
  // Timers every 5 ms for 2 s: the longest time between two of them.
  const longestGap = await tab.evaluate(
    () =>
      new Promise((done) => {
        let last = performance.now();
        let longest = 0;
        const started = last;
        const tick = () => {
          const now = performance.now();
          longest = Math.max(longest, now - last);
          last = now;
          if (now - started < 2000) setTimeout(tick, 5);
          else done(longest);
        };
        setTimeout(tick, 5);
      }),
  );
  const latencies = [];
  for (let i = 0; i < 15; i++) {
    await tab.waitForTimeout(100);
    await button('Pause').click();
    await status(/^Paused$/);
    latencies.push(await tab.evaluate(() => window.asmdbg.timing.pauseLatencyMs));
    await button('Run').click();
    await status(/Running/);
  }
  await tab.close();
  latencies.sort((a, b) => a - b);
  const ms = (v) => `${v.toFixed(1)} ms`;
  console.log(`  the page while a program runs: longest event-loop gap ${ms(longestGap)} (timers every 5 ms for 2 s)`);
  console.log(
    `  Pause to the stop in the page: median ${ms(latencies[Math.floor(latencies.length / 2)])}, ` +
      `longest ${ms(latencies[latencies.length - 1])} (${latencies.length} pauses; target < 50 ms)`,
  );
}

await responsiveness();
await context.close();
server.close();
rmSync(profile, { recursive: true, force: true });
