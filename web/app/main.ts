// The page: files in an editor, a debugger toolbar and panes, all driven through DAP by the
// asmdbg session in a Web Worker (worker.ts). Whatever the page shows comes from the adapter's
// answers, as in VS Code: the page holds no machine state of its own.

import { EditorView } from '@codemirror/view';
import type { EditorState } from '@codemirror/state';
import { DapClient } from './dap';
import { detectIsa, type Isa } from './dialects';
import * as editor from './editor';
import * as panes from './panes';
import { EXAMPLES } from './examples';
import { parseFragment, shareFragment } from './share';
import { SpeedControl, displayStatus, heldText, parseSpeed, speedText, type FrameSize } from './speed';
import type { DapMessage } from './messages';

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

interface FileEntry {
  name: string;
  state: EditorState;
}

type Phase = 'idle' | 'starting' | 'running' | 'stopped' | 'ended';

const client = new DapClient(new URL('worker.js', import.meta.url).href);
const view = new EditorView({ parent: $('editor') });

let files: FileEntry[] = [];
let active = 0;
let phase: Phase = 'idle';
/** The program ran to its end (stopped there, with its history to step back through). */
let atExit = false;
/** The files were edited since the program was launched. */
let editedSinceLaunch = false;
let launchedIsa: Isa | undefined;
let registersBefore = new Map<string, string>();
let dataLabels: panes.Variable[] = [];
let watches: string[] = [];
/** `invalidated` events still to come from the page's own monitor commands (not news). */
let ownInvalidations = 0;
/** When the last pause was sent and how long its stop took (web/bench.mjs reads it). */
const timing = { pauseSentAt: 0, pauseLatencyMs: -1 };
/** The pace the program was launched with (instructions a second; undefined: unlimited). */
let launchedSpeed: number | undefined;
/** The speed control moved since the launch: Restart launches again to take it. */
let speedChangedSinceLaunch = false;
/** The display's last frame size, and keys typed in the past that wait for the program. */
let frameSize: FrameSize | undefined;
let heldKeys = 0;

// ---- Files ----------------------------------------------------------------------------------

function isaOf(text: string): Isa | undefined {
  return ($<HTMLSelectElement>('isa').value as Isa) || detectIsa(text);
}

function entry(name: string, text: string): FileEntry {
  const isa = /\.(asm|s|lc3)$/i.test(name) ? isaOf(text) : undefined;
  return { name, state: editor.newState(text, isa, breakpointsChanged, edited) };
}

function saveActive() {
  if (files[active]) {
    files[active].state = view.state;
  }
}

function showFile(index: number) {
  saveActive();
  active = Math.max(0, Math.min(index, files.length - 1));
  if (files[active]) {
    view.setState(files[active].state);
  }
  renderTabs();
}

function renderTabs() {
  const tabs = document.querySelector('.tabs')!;
  tabs.replaceChildren(
    ...files.map((file, i) => {
      const tab = document.createElement('button');
      tab.type = 'button';
      tab.setAttribute('role', 'tab');
      tab.setAttribute('aria-selected', String(i === active));
      tab.textContent = file.name;
      tab.onclick = () => showFile(i);
      return tab;
    }),
  );
  for (const [id, pick] of [
    ['input-file', /\.(in|txt)$/i],
    ['keys-file', /\.(keys|txt)$/i],
  ] as const) {
    const select = $<HTMLSelectElement>(id);
    const chosen = select.value;
    const first = select.options[0];
    const options = files
      .filter((f) => pick.test(f.name))
      .map((f) => {
        const option = document.createElement('option');
        option.value = option.textContent = f.name;
        return option;
      });
    select.replaceChildren(first, ...options);
    select.value = options.some((o) => o.value === chosen) ? chosen : '';
  }
}

function setFiles(texts: Record<string, string>) {
  files = Object.entries(texts).map(([name, text]) => entry(name, text));
  active = 0;
  if (files[0]) {
    view.setState(files[0].state);
  }
  renderTabs();
}

function fileText(file: FileEntry): string {
  return (file === files[active] ? view.state : file.state).doc.toString();
}

function texts(): Record<string, string> {
  saveActive();
  return Object.fromEntries(files.map((f) => [f.name, f.state.doc.toString()]));
}

/** The files the program is: the assembly files no other file includes, in tab order. */
function programFiles(): string[] {
  const all = texts();
  const included = new Set<string>();
  for (const text of Object.values(all)) {
    for (const m of text.matchAll(/^\s*\.include\s+"([^"]+)"/gim)) {
      included.add(m[1].replace(/^\.\//, ''));
    }
  }
  return Object.keys(all).filter((name) => /\.(asm|s|lc3)$/i.test(name) && !included.has(name));
}

function edited() {
  editedSinceLaunch = true;
}

// ---- Console ------------------------------------------------------------------------------

function print(text: string, kind: 'stdout' | 'stderr' | 'note' | 'input' = 'stdout') {
  const log = $('console');
  const last = log.lastElementChild as HTMLElement | null;
  if (kind === 'note' && last && last.dataset.stream !== 'note' && !last.textContent?.endsWith('\n')) {
    // asmdbg's notes start on a line of their own, not after a prompt the program printed.
    text = `\n${text}`;
  }
  if (last && last.dataset.stream === kind) {
    last.textContent += text;
  } else {
    const span = document.createElement('span');
    span.dataset.stream = kind;
    span.className = kind;
    span.textContent = text;
    log.append(span);
  }
  log.scrollTop = log.scrollHeight;
}

function clearConsole() {
  $('console').replaceChildren();
}

// ---- Debugger state -----------------------------------------------------------------------

function setPhase(next: Phase, status?: string) {
  phase = next;
  const stopped = next === 'stopped';
  const can: Record<string, boolean> = {
    run: next !== 'starting' && next !== 'running',
    pause: next === 'running',
    step: next === 'idle' || next === 'ended' || (stopped && !atExit),
    'step-over': stopped && !atExit,
    'step-out': stopped && !atExit,
    'step-back': stopped,
    'reverse-continue': stopped,
    restart: stopped || next === 'running',
    stop: stopped || next === 'running',
  };
  for (const [id, enabled] of Object.entries(can)) {
    $<HTMLButtonElement>(id).disabled = !enabled;
  }
  $('status').textContent = status ?? { idle: 'Ready', starting: 'Starting…', running: 'Running', stopped: 'Paused', ended: 'Ended' }[next];
  if (next !== 'stopped') {
    $<HTMLInputElement>('timeline').disabled = true;
  }
}

function launchOptions(): Record<string, unknown> {
  const text = $<HTMLInputElement>('options').value.trim();
  if (!text) {
    return {};
  }
  const options = JSON.parse(text);
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new Error('the launch options must be a JSON object, such as {"virtualTime": true}');
  }
  return options;
}

/** Starts the program from the files: a new session, launch, breakpoints, go. */
async function launch(stopOnEntry: boolean) {
  clearConsole();
  clearErrors();
  setPhase('starting');
  atExit = false;
  registersBefore = new Map();
  let options: Record<string, unknown>;
  try {
    options = launchOptions();
  } catch (e) {
    print(`${(e as Error).message}\n`, 'stderr');
    setPhase('idle', 'Not started');
    return;
  }
  const program = programFiles();
  if (program.length === 0) {
    print('There is no assembly file to run: add one (New file, Open or an example).\n', 'stderr');
    setPhase('idle', 'Not started');
    return;
  }
  const isa = ($<HTMLSelectElement>('isa').value as Isa) || undefined;
  launchedIsa = isa ?? detectIsa(texts()[program[0]]);
  $<HTMLInputElement>('console-input').placeholder =
    launchedIsa === 'lc3'
      ? 'Keys typed here go to the program as you type them (LC-3 reads keys)'
      : 'Type a line of input for the program and press Enter';
  const chosenSpeed = speed.value;
  launchedSpeed = chosenSpeed ?? (options.speed === undefined ? undefined : parseSpeed(String(options.speed)));
  speedChangedSinceLaunch = false;
  frameSize = undefined;
  heldKeys = 0;
  showDisplayStatus();
  client.newSession();
  client.setFiles(texts());
  editedSinceLaunch = false;
  try {
    await client.request('initialize', {
      adapterID: 'asmdbg',
      clientID: 'asmdbg-web',
      clientName: 'asmdbg in the browser',
      linesStartAt1: true,
      columnsStartAt1: true,
      pathFormat: 'path',
      supportsRunInTerminalRequest: false,
    });
    const input = $<HTMLSelectElement>('input-file').value;
    const keys = $<HTMLSelectElement>('keys-file').value;
    await client.request('launch', {
      ...options,
      // The speed control, unless it says unlimited (then the options' `speed`, if any).
      ...(chosenSpeed !== undefined ? { speed: String(chosenSpeed) } : {}),
      program,
      ...(isa ? { isa } : {}),
      ...(input ? { input } : {}),
      ...(keys ? { keys } : {}),
      stopOnEntry,
      console: 'internalConsole',
    });
  } catch (e) {
    showLaunchError((e as Error).message);
    setPhase('idle', 'Assembly failed');
    return;
  }
  for (const file of files) {
    await sendBreakpoints(file);
  }
  await sendWatches();
  if (!stopOnEntry) {
    setPhase('running');
  }
  await client.request('configurationDone');
}

function clearErrors() {
  saveActive();
  for (const file of files) {
    file.state = editor.withErrors(file.state, []);
  }
  view.setState(files[active]?.state ?? view.state);
}

function showLaunchError(message: string) {
  print(`${message}\n`, 'stderr');
  const errors = editor.parseErrors(message, files.map((f) => f.name));
  saveActive();
  for (const file of files) {
    file.state = editor.withErrors(
      file.state,
      errors.filter((e) => e.file === file.name),
    );
  }
  const first = files.findIndex((f) => errors.some((e) => e.file === f.name));
  if (first >= 0) {
    active = first;
  }
  view.setState(files[active].state);
  renderTabs();
  const firstError = errors.find((e) => e.file === files[active].name);
  if (firstError) {
    revealLine(firstError.line);
  }
}

async function sendBreakpoints(file: FileEntry) {
  if (phase === 'idle' || !/\.(asm|s|lc3)$/i.test(file.name)) {
    return;
  }
  const state = file === files[active] ? view.state : file.state;
  const lines = editor.breakpointLines(state);
  try {
    await client.request('setBreakpoints', {
      source: { name: file.name, path: file.name },
      breakpoints: lines.map((line) => ({ line })),
    });
  } catch (e) {
    print(`breakpoints of ${file.name}: ${(e as Error).message}\n`, 'note');
  }
}

function breakpointsChanged() {
  saveActive();
  void sendBreakpoints(files[active]);
}

async function sendWatches() {
  const breakpoints = [];
  for (const label of watches) {
    try {
      const info = await client.request('dataBreakpointInfo', { variablesReference: 3, name: label });
      if (info.dataId) {
        breakpoints.push({ dataId: info.dataId, accessType: 'write' });
      }
    } catch (e) {
      print(`watch ${label}: ${(e as Error).message}\n`, 'note');
    }
  }
  await client.request('setDataBreakpoints', { breakpoints }).catch(() => undefined);
}

function revealLine(line: number) {
  if (line < 1 || line > view.state.doc.lines) {
    return;
  }
  const at = view.state.doc.line(line).from;
  view.dispatch({ effects: EditorView.scrollIntoView(at, { y: 'center' }) });
}

/** Shows `line` of `file` as where the program is (0: nowhere). */
function showStopped(file: string | undefined, line: number) {
  saveActive();
  const index = file ? files.findIndex((f) => f.name === file) : -1;
  for (const [i, f] of files.entries()) {
    f.state = editor.withStoppedLine(f.state, i === index ? line : 0);
  }
  if (index >= 0) {
    active = index;
  }
  view.setState(files[active].state);
  renderTabs();
  if (index >= 0) {
    revealLine(line);
  }
}

/** Everything the panes show, asked again of the adapter. */
async function refresh() {
  try {
    const { stackFrames } = await client.request('stackTrace', { threadId: 1, levels: 50 });
    const frames = stackFrames as panes.StackFrame[];
    panes.showStack(frames, (frame) => showStopped(frame.source?.path, frame.line));
    const top = frames[0];
    showStopped(top?.source?.path, top?.line ?? 0);
    const registers: panes.Variable[] = (await client.request('variables', { variablesReference: 1 })).variables;
    panes.showRegisters(registers, registersBefore);
    registersBefore = new Map(registers.map((r) => [r.name, r.value]));
    dataLabels = (await client.request('variables', { variablesReference: 3 }).catch(() => ({ variables: [] }))).variables;
    panes.showData(dataLabels);
    panes.showWatches(watches, dataLabels, removeWatch);
    await showMemoryAt();
    const history = panes.parseHistory((await monitor('history')).result);
    panes.showTimeline(history, phase === 'stopped');
    if (history && history.now >= history.frontier && heldKeys > 0) {
      // Back at the end of the recording: the keys typed in the past went to the program.
      keysHeld(0);
    }
  } catch (e) {
    // The program moved on meanwhile (a request that needs it stopped): the next stop redraws.
    if (phase === 'stopped') {
      print(`${(e as Error).message}\n`, 'note');
    }
  }
}

/** A monitor command (as gdb's `monitor`), whose answer is text. */
async function monitor(command: string): Promise<{ result: string }> {
  // The adapter says `invalidated` after every monitor command, right after its answer.
  ownInvalidations++;
  try {
    return await client.request('evaluate', { expression: `monitor ${command}`, context: 'repl' });
  } catch (e) {
    ownInvalidations--;
    throw e;
  }
}

async function showMemoryAt() {
  const address = $<HTMLInputElement>('memory-address').value.trim() || dataLabels[0]?.memoryReference;
  if (!address || phase !== 'stopped') {
    return;
  }
  try {
    const answer = await client.request('readMemory', { memoryReference: address, count: 128 });
    const bytes = Uint8Array.from(atob(answer.data ?? ''), (c) => c.charCodeAt(0));
    const labels = new Map<number, string>();
    for (const v of dataLabels) {
      const at = parseAddress(v.memoryReference ?? '');
      if (at !== undefined) {
        labels.set(at * unitBytes(), v.name);
      }
    }
    // The answer's address is gdb's byte view (an LC-3 word at A is bytes 2A and 2A+1).
    const start = parseAddress(answer.address) ?? 0;
    panes.showMemory(start, bytes, labels, (a) => formatAddress(a / unitBytes()));
  } catch (e) {
    $('memory').textContent = (e as Error).message;
  }
}

/** Bytes per address unit as readMemory counts them: LC-3 words are two bytes. */
function unitBytes() {
  return launchedIsa === 'lc3' ? 2 : 1;
}

function parseAddress(text: string): number | undefined {
  const m = /^(?:x|0x)([0-9a-f]+)$/i.exec(text.trim());
  if (m) {
    return parseInt(m[1], 16);
  }
  return /^\d+$/.test(text.trim()) ? +text : undefined;
}

function formatAddress(address: number): string {
  const a = Math.floor(address);
  if (launchedIsa === 'lc3') {
    return 'x' + a.toString(16).toUpperCase().padStart(4, '0');
  }
  if (launchedIsa === 'mips') {
    return '0x' + a.toString(16).padStart(8, '0');
  }
  return String(a);
}

// ---- Events from the session ----------------------------------------------------------------

client.on('output', (m: DapMessage) => {
  const category = m.body.category;
  if (category === 'stdout') {
    print(m.body.output, 'stdout');
  } else if (category === 'stderr') {
    print(m.body.output, 'stderr');
  } else {
    print(m.body.output, 'note');
  }
});

client.on('stopped', (m: DapMessage) => {
  const reason = m.body.reason as string;
  if (reason === 'pause' && timing.pauseSentAt > 0) {
    timing.pauseLatencyMs = performance.now() - timing.pauseSentAt;
    timing.pauseSentAt = 0;
  }
  atExit = reason === 'exit';
  const why: Record<string, string> = {
    entry: 'Paused at the entry',
    breakpoint: 'Paused at a breakpoint',
    'data breakpoint': 'Paused at a watched write',
    step: 'Paused after a step',
    pause: 'Paused',
    exception: `Stopped on a fault: ${m.body.text ?? ''}`,
    exit: 'The program ended: step back to see how, or Run to start again',
    goto: 'Moved in the recorded run',
  };
  setPhase('stopped', why[reason] ?? m.body.description ?? 'Paused');
  void refresh();
});

client.on('continued', () => setPhase('running'));

client.on('terminated', () => {
  setPhase('ended');
  showStopped(undefined, 0);
});

client.on('invalidated', () => {
  if (ownInvalidations > 0) {
    ownInvalidations--;
  } else if (phase === 'stopped') {
    void refresh();
  }
});

client.on('asmdbgDisplay', (m: DapMessage) => {
  panes.showFrame(m.body);
  frameSize = m.body;
  showDisplayStatus();
});

/** The status line under the display: its size and scale, the pace, keys that wait. */
function showDisplayStatus() {
  const line = $('display-status');
  const text = frameSize ? displayStatus(frameSize, launchedSpeed, heldKeys) : '';
  if (line.textContent !== text) {
    line.textContent = text;
  }
}

/** The answer to keys pressed: how many typed in the past wait for the end of the recording. */
function keysHeld(held: number) {
  const news = held > 0 && held !== heldKeys;
  heldKeys = held;
  showDisplayStatus();
  if (news && !frameSize) {
    // No display to say it under: the console says it.
    print(`${heldText(held)}\n`, 'note');
  }
}

/** Presses a key on the machine's keyboard (the display's, or LC-3's console). */
function pressKey(code: number) {
  void client
    .request('asmdbgKey', { key: code })
    .then((body) => keysHeld(body.held ?? 0))
    .catch((err) => print(`${err.message}\n`, 'note'));
}

client.onCrash = (message) => {
  print(`asmdbg stopped with an internal error (please report it): ${message}\n`, 'stderr');
  setPhase('idle', 'Crashed');
};

// ---- Controls -------------------------------------------------------------------------------

async function motion(command: string, args: Record<string, unknown> = {}) {
  if (phase !== 'stopped') {
    return;
  }
  setPhase('running');
  try {
    await client.request(command, { threadId: 1, ...args });
  } catch (e) {
    print(`${(e as Error).message}\n`, 'note');
    setPhase('stopped');
  }
}

const actions: Record<string, () => void> = {
  run: () => {
    if (phase === 'stopped' && !atExit) {
      void motion('continue');
    } else {
      void launch(false);
    }
  },
  pause: () => {
    timing.pauseSentAt = performance.now();
    void client.request('pause', { threadId: 1 }).catch(() => undefined);
  },
  step: () => (phase === 'stopped' ? void motion('stepIn') : void launch(true)),
  'step-over': () => void motion('next'),
  'step-out': () => void motion('stepOut'),
  'step-back': () => void motion('stepBack'),
  'reverse-continue': () => void motion('reverseContinue'),
  restart: async () => {
    if (editedSinceLaunch || speedChangedSinceLaunch) {
      void launch(true);
      return;
    }
    if (phase === 'running') {
      await client.request('pause', { threadId: 1 }).catch(() => undefined);
    }
    clearConsole();
    registersBefore = new Map();
    await client.request('restart').catch((e) => print(`${(e as Error).message}\n`, 'note'));
  },
  stop: () => {
    void client.request('disconnect', {}).catch(() => undefined);
    client.newSession();
    showStopped(undefined, 0);
    setPhase('idle', 'Stopped');
  },
};

for (const [id, action] of Object.entries(actions)) {
  $(id).onclick = action;
}

document.addEventListener('keydown', (e) => {
  const keys: Record<string, string> = { F5: 'run', F6: 'pause', F10: 'step-over', F11: e.shiftKey ? 'step-out' : 'step' };
  const id = keys[e.key];
  if (id && !$<HTMLButtonElement>(id).disabled) {
    e.preventDefault();
    actions[id]();
  }
});

/** A key as a byte for the machine's keyboard, or undefined. */
function keyCode(e: KeyboardEvent): number | undefined {
  if (e.ctrlKey || e.metaKey || e.altKey) {
    return undefined;
  }
  const named: Record<string, number> = { Enter: 10, Backspace: 8, Tab: 9, Escape: 27 };
  const code = e.key.length === 1 ? e.key.charCodeAt(0) : named[e.key];
  return code !== undefined && code <= 255 ? code : undefined;
}

// LC-3 reads keys, not lines: each key typed in the console's input goes to the program at once
// (as on the simulators' consoles; the program echoes what it wants shown).
$('console-input').addEventListener('keydown', (e: KeyboardEvent) => {
  if (launchedIsa !== 'lc3' || (phase !== 'running' && phase !== 'stopped')) {
    return;
  }
  const code = keyCode(e);
  if (code === undefined) {
    return;
  }
  e.preventDefault();
  pressKey(code);
});

$('console-form').onsubmit = (e) => {
  e.preventDefault();
  const input = $<HTMLInputElement>('console-input');
  const line = input.value;
  input.value = '';
  if (phase !== 'running' && phase !== 'stopped') {
    print('Run the program first: input goes to a running program.\n', 'note');
    return;
  }
  // MARS and SimpleRISC read lines: the adapter adds the Enter. The line shows as typed, as
  // on MARS's console.
  print(`${line}\n`, 'input');
  void client.request('evaluate', { expression: `> ${line}`, context: 'repl' }).catch((err) => print(`${err.message}\n`, 'note'));
};

$('display').addEventListener('keydown', (e: KeyboardEvent) => {
  const code = keyCode(e);
  if (code === undefined) {
    return;
  }
  e.preventDefault();
  pressKey(code);
});

$('watch').onclick = () => {
  const label = $<HTMLSelectElement>('watch-label').value;
  if (label && !watches.includes(label)) {
    watches.push(label);
    panes.showWatches(watches, dataLabels, removeWatch);
    void sendWatches();
  }
};

function removeWatch(label: string) {
  watches = watches.filter((w) => w !== label);
  panes.showWatches(watches, dataLabels, removeWatch);
  void sendWatches();
}

$('memory-show').onclick = () => void showMemoryAt();

const speed = new SpeedControl($<HTMLInputElement>('speed'), $('speed-text'), (chosen) => {
  if (phase === 'running' || phase === 'stopped') {
    // The pace is the launch's: the running program keeps its own until it starts again.
    speedChangedSinceLaunch = chosen !== launchedSpeed;
    $('status').textContent = speedChangedSinceLaunch
      ? `The program keeps its speed; Restart runs it at ${speedText(chosen)}`
      : 'The program runs at this speed';
  }
});

const timeline = $<HTMLInputElement>('timeline');
timeline.oninput = () => {
  $('timeline-text').textContent = `go to instruction ${(+timeline.value).toLocaleString('en')}…`;
};
timeline.onchange = async () => {
  if (phase !== 'stopped') {
    return;
  }
  const answer = await monitor(`goto ${timeline.value}`);
  print(`${answer.result}\n`, 'note');
  await refresh();
};

$<HTMLSelectElement>('isa').onchange = () => {
  saveActive();
  for (const file of files) {
    const isa = /\.(asm|s|lc3)$/i.test(file.name) ? isaOf(file.state.doc.toString()) : undefined;
    file.state = editor.withIsa(file.state, isa);
  }
  view.setState(files[active].state);
};

// ---- Files: examples, open, save, new, share ------------------------------------------------

const exampleSelect = $<HTMLSelectElement>('example');
for (const [i, example] of EXAMPLES.entries()) {
  const option = document.createElement('option');
  option.value = String(i);
  option.textContent = example.title;
  exampleSelect.append(option);
}
exampleSelect.onchange = () => {
  const example = EXAMPLES[+exampleSelect.value];
  exampleSelect.value = '';
  if (!example) {
    return;
  }
  actions.stop();
  $<HTMLSelectElement>('isa').value = '';
  setFiles(example.files);
  $<HTMLSelectElement>('input-file').value = example.input ?? '';
  $<HTMLSelectElement>('keys-file').value = '';
  $<HTMLInputElement>('options').value = example.options ? JSON.stringify(example.options) : '';
  speed.set(example.speed);
  setPhase('idle', `${example.title}: press Run`);
};

$('open').onclick = () => $('open-file').click();
$<HTMLInputElement>('open-file').onchange = async (e) => {
  const chosen = Array.from((e.target as HTMLInputElement).files ?? []);
  saveActive();
  for (const file of chosen) {
    const text = await file.text();
    const existing = files.findIndex((f) => f.name === file.name);
    if (existing >= 0) {
      files[existing] = entry(file.name, text);
    } else {
      files.push(entry(file.name, text));
    }
  }
  if (chosen.length > 0) {
    active = files.findIndex((f) => f.name === chosen[0].name);
    view.setState(files[active].state);
  }
  renderTabs();
};

$('save').onclick = () => {
  const file = files[active];
  if (!file) {
    return;
  }
  const link = document.createElement('a');
  link.href = URL.createObjectURL(new Blob([fileText(file)], { type: 'text/plain' }));
  link.download = file.name;
  link.click();
  URL.revokeObjectURL(link.href);
};

$('new-file').onclick = () => {
  const name = prompt('Name of the new file (MIPS programs may .include it):', 'lib.asm');
  if (!name || files.some((f) => f.name === name)) {
    return;
  }
  saveActive();
  files.push(entry(name, ''));
  showFile(files.length - 1);
};

$('rename-file').onclick = () => {
  const file = files[active];
  const name = file && prompt('New name:', file.name);
  if (!file || !name || files.some((f) => f.name === name)) {
    return;
  }
  file.name = name;
  renderTabs();
};

$('close-file').onclick = () => {
  if (files.length === 0 || !confirm(`Close ${files[active].name}? Its text is lost unless saved.`)) {
    return;
  }
  files.splice(active, 1);
  if (files.length === 0) {
    files.push(entry('program.asm', ''));
  }
  showFile(Math.min(active, files.length - 1));
};

$('share').onclick = async () => {
  const file = files[active];
  if (!file) {
    return;
  }
  const input = $<HTMLSelectElement>('input-file').value;
  const fragment = shareFragment({
    name: file.name,
    source: fileText(file),
    input: input ? texts()[input] : undefined,
    isa: ($<HTMLSelectElement>('isa').value as Isa) || undefined,
  });
  const link = `${location.origin}${location.pathname}#${fragment}`;
  history.replaceState(null, '', `#${fragment}`);
  const field = $<HTMLInputElement>('share-link');
  field.value = link;
  (field.closest('.share-line') as HTMLElement).hidden = false;
  field.select();
  await navigator.clipboard?.writeText(link).catch(() => undefined);
  $('status').textContent = 'The link holds the program: copied';
};

/** Opens what the address's fragment carries, if anything. */
function openFragment(): boolean {
  let shared;
  try {
    shared = parseFragment(location.hash);
  } catch (e) {
    print(`This link's program cannot be read: ${(e as Error).message}\n`, 'stderr');
    return false;
  }
  if (!shared) {
    return false;
  }
  $<HTMLSelectElement>('isa').value = shared.isa ?? '';
  const texts: Record<string, string> = { [shared.name]: shared.source };
  if (shared.input !== undefined) {
    texts['input.txt'] = shared.input;
  }
  setFiles(texts);
  $<HTMLSelectElement>('input-file').value = shared.input !== undefined ? 'input.txt' : '';
  setPhase('idle', `${shared.name} from the link: press Run`);
  return true;
}

window.addEventListener('hashchange', () => {
  if (phase === 'idle' || phase === 'ended') {
    openFragment();
  }
});

// For tests and the browser's console: the page's state, and a line brought into view.
(window as unknown as { asmdbg: unknown }).asmdbg = {
  timing,
  phase: () => phase,
  revealLine,
  showFile: (name: string) => showFile(files.findIndex((f) => f.name === name)),
};

if (!openFragment()) {
  setFiles(EXAMPLES[0].files);
  setPhase('idle', 'Nim (LC-3): press Run, or pick another example');
} else {
  setPhase(phase, $('status').textContent ?? undefined);
}
void client.ready;
