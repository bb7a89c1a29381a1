// The "asmdbg display" panel from the extension's side: display.js against a stand-in for the
// `vscode` module (when the panel opens, what it is sent, where its keys go), and `asmdbg dap`
// driven by the VS Code team's DebugClient (the frames and keys it exchanges with the panel).
// A missing adapter fails the adapter tests: they are never skipped.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { Displays, DISPLAY_EVENT, KEY_REQUEST, FRAME_REQUEST, SHOW_COMMAND } = require('../display');
const { Session, TEST_OPTIONS, scratch } = require('./support');

// Lets the stand-in's promises settle (a timer that keeps the test's event loop alive).
function settle() {
  return new Promise((resolve) => setTimeout(resolve, 10));
}

// An event emitter as VS Code's: `on(listener)` returns a disposable.
function emitter() {
  const listeners = new Set();
  const on = (listener) => {
    listeners.add(listener);
    return { dispose: () => listeners.delete(listener) };
  };
  on.fire = (value) => [...listeners].forEach((l) => l(value));
  on.count = () => listeners.size;
  return on;
}

// A webview panel that records what it is sent.
function fakePanel(viewType, title, showOptions, options) {
  const panel = {
    viewType, title, showOptions, options,
    visible: true,
    disposed: false,
    revealed: 0,
    posted: [],
    webview: {
      html: '',
      cspSource: 'vscode-webview://fake',
      asWebviewUri: (uri) => `vscode-webview://fake${uri.fsPath}`,
      postMessage(message) {
        panel.posted.push(message);
        return Promise.resolve(true);
      },
      onDidReceiveMessage: emitter(),
    },
    onDidChangeViewState: emitter(),
    onDidDispose: emitter(),
    reveal() {
      panel.revealed++;
    },
    dispose() {
      panel.disposed = true;
      panel.onDidDispose.fire();
    },
  };
  return panel;
}

function makeVscode() {
  const state = { panels: [], errors: [], commands: {}, activeDebugSession: undefined };
  const vscode = {
    state,
    ViewColumn: { Beside: -2 },
    Uri: { file: (fsPath) => ({ scheme: 'file', fsPath }) },
    debug: {
      onDidReceiveDebugSessionCustomEvent: emitter(),
      onDidTerminateDebugSession: emitter(),
      get activeDebugSession() {
        return state.activeDebugSession;
      },
    },
    commands: {
      registerCommand: (name, callback) => {
        state.commands[name] = callback;
        return { dispose() {} };
      },
    },
    window: {
      createWebviewPanel: (...args) => {
        const panel = fakePanel(...args);
        state.panels.push(panel);
        return panel;
      },
      showErrorMessage: (message) => state.errors.push(message),
    },
  };
  const displays = new Displays(vscode);
  displays.register({ subscriptions: [] });
  return vscode;
}

// A debug session that records its custom requests and answers them with `answer`.
function fakeSession(id, type = 'asmdbg', answer = () => ({})) {
  const session = {
    id, type, name: `game ${id}`, requests: [],
    customRequest(command, args) {
      session.requests.push([command, args]);
      return Promise.resolve().then(() => answer(command, args));
    },
  };
  return session;
}

const FRAME = { width: 2, height: 1, unitWidth: 8, unitHeight: 8, pixels: 'AAAA+AAA' };

function frameEvent(vscode, session, body = FRAME) {
  vscode.debug.onDidReceiveDebugSessionCustomEvent.fire({ session, event: DISPLAY_EVENT, body });
}

test('the first frame opens the panel beside the editor; later ones are drawn in it', () => {
  const vscode = makeVscode();
  const session = fakeSession('s1');
  // Other adapters' events and other asmdbg events open nothing.
  frameEvent(vscode, fakeSession('x', 'cppdbg'));
  vscode.debug.onDidReceiveDebugSessionCustomEvent.fire({ session, event: 'other', body: {} });
  assert.equal(vscode.state.panels.length, 0);
  frameEvent(vscode, session);
  assert.equal(vscode.state.panels.length, 1);
  const [panel] = vscode.state.panels;
  assert.equal(panel.title, 'asmdbg display: game s1');
  assert.deepEqual(panel.showOptions, { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true });
  assert.equal(panel.options.enableScripts, true);
  assert.equal(panel.options.retainContextWhenHidden, true);
  // The page with its policy and its script at the webview's URI.
  assert.match(panel.webview.html, /Content-Security-Policy/);
  const nonce = panel.webview.html.match(/'nonce-([^']+)'/)[1];
  assert.ok(panel.webview.html.includes(`<script nonce="${nonce}" src="vscode-webview://fake${path.join(__dirname, '..', 'display', 'panel.js')}">`));
  assert.deepEqual(panel.posted, [{ type: 'frame', frame: FRAME }]);
  const next = { ...FRAME, pixels: 'AAAAAAAA' };
  frameEvent(vscode, session, next);
  assert.equal(vscode.state.panels.length, 1);
  assert.deepEqual(panel.posted.at(-1), { type: 'frame', frame: next });
  // The page (re)loaded, or shown again: the latest frame once more.
  panel.webview.onDidReceiveMessage.fire({ type: 'ready' });
  assert.deepEqual(panel.posted.at(-1), { type: 'frame', frame: next });
  panel.posted.length = 0;
  panel.onDidChangeViewState.fire({ webviewPanel: panel });
  assert.deepEqual(panel.posted, [{ type: 'frame', frame: next }]);
});

test('keys typed in the panel are asmdbgKey requests; a refused one is shown', async () => {
  const vscode = makeVscode();
  const session = fakeSession('s1', 'asmdbg', (command, args) => {
    if (args.key === 0) {
      throw new Error('asmdbgKey: no');
    }
    return { keys: 1 };
  });
  frameEvent(vscode, session);
  const [panel] = vscode.state.panels;
  panel.webview.onDidReceiveMessage.fire({ type: 'key', key: 97 });
  panel.webview.onDidReceiveMessage.fire({ type: 'key', key: 0 });
  await settle();
  assert.deepEqual(session.requests, [[KEY_REQUEST, { key: 97 }], [KEY_REQUEST, { key: 0 }]]);
  const status = panel.posted.at(-1);
  assert.equal(status.type, 'status');
  assert.equal(status.error, true);
  assert.match(status.text, /not sent: asmdbgKey: no/);
});

test('keys typed while the program is in its past are said to wait for the end of the recording', async () => {
  const vscode = makeVscode();
  const session = fakeSession('s1', 'asmdbg', () => ({ keys: 1, held: 2 }));
  frameEvent(vscode, session);
  const [panel] = vscode.state.panels;
  panel.webview.onDidReceiveMessage.fire({ type: 'key', key: 97 });
  await settle();
  const status = panel.posted.at(-1);
  assert.equal(status.type, 'status');
  assert.match(status.text, /2 keys typed in the past wait for the end of the recording/);
});

test('when the session ends the panel keeps its last frame and says so; the next one reuses it', async () => {
  const vscode = makeVscode();
  const first = fakeSession('s1');
  frameEvent(vscode, first);
  const [panel] = vscode.state.panels;
  vscode.debug.onDidTerminateDebugSession.fire(first);
  assert.match(panel.posted.at(-1).text, /ended: this is its last frame/);
  panel.webview.onDidReceiveMessage.fire({ type: 'key', key: 97 });
  await settle();
  assert.deepEqual(first.requests, [], 'no request to a session that ended');
  // The next session with a display draws in the same panel.
  const second = fakeSession('s2');
  frameEvent(vscode, second);
  assert.equal(vscode.state.panels.length, 1);
  assert.equal(panel.title, 'asmdbg display: game s2');
  assert.equal(panel.webview.onDidReceiveMessage.count(), 1, 'one listener: the new session\'s');
  panel.webview.onDidReceiveMessage.fire({ type: 'key', key: 98 });
  await settle();
  assert.deepEqual(second.requests, [[KEY_REQUEST, { key: 98 }]]);
});

test('a closed panel stays closed until the command shows it again', async () => {
  const vscode = makeVscode();
  const current = { ...FRAME, pixels: '////////' };
  const session = fakeSession('s1', 'asmdbg', (command) => (command === FRAME_REQUEST ? current : {}));
  frameEvent(vscode, session);
  vscode.state.panels[0].dispose();
  frameEvent(vscode, session);
  assert.equal(vscode.state.panels.length, 1, 'closing it was the user\'s choice');
  // "asmdbg: Show Display" without an asmdbg session says so.
  await vscode.state.commands[SHOW_COMMAND]();
  assert.match(vscode.state.errors[0], /no asmdbg debug session/);
  vscode.state.activeDebugSession = session;
  await vscode.state.commands[SHOW_COMMAND]();
  assert.equal(vscode.state.panels.length, 2);
  assert.deepEqual(session.requests, [[FRAME_REQUEST, {}]]);
  assert.deepEqual(vscode.state.panels[1].posted, [{ type: 'frame', frame: current }]);
  // Shown again while open: revealed, not doubled.
  await vscode.state.commands[SHOW_COMMAND]();
  assert.equal(vscode.state.panels.length, 2);
  assert.equal(vscode.state.panels[1].revealed, 1);
});

// The adapter's side, with the client VS Code's tests use.

// A Session that also records the display's frames.
async function displaySession(t) {
  const session = await Session.start(t);
  session.dc.on(DISPLAY_EVENT, (event) => session.record(event));
  return session;
}

function rgbOf(frame) {
  return Buffer.from(frame.pixels, 'base64');
}

test('asmdbg dap sends the display\'s frames after the launch and each stop', TEST_OPTIONS, async (t) => {
  const program = scratch(t, 'dot.asm', [
    '        .ORIG x3000',
    '        LD R1, RED',
    '        STI R1, VIDEO',
    '        HALT',
    'RED     .FILL x7C00',
    'VIDEO   .FILL xC000',
    '        .END',
  ].join('\n'));
  const s = await displaySession(t);
  await s.launch({ program, display: true });
  const first = (await s.event(DISPLAY_EVENT)).body;
  assert.deepEqual([first.width, first.height, first.unitWidth, first.unitHeight], [128, 124, 2, 2]);
  assert.equal(rgbOf(first).length, 128 * 124 * 3);
  assert.deepEqual([...rgbOf(first).subarray(0, 3)], [0, 0, 0]);
  await s.motion('next');
  await s.motion('next');
  const drawn = (await s.event(DISPLAY_EVENT)).body;
  assert.deepEqual([...rgbOf(drawn).subarray(0, 6)], [0xf8, 0, 0, 0, 0, 0], 'x7C00 is red');
  await s.motion('stepBack');
  const before = (await s.event(DISPLAY_EVENT)).body;
  assert.deepEqual([...rgbOf(before).subarray(0, 3)], [0, 0, 0], 'stepping back redraws');
});

test('asmdbg dap takes the panel\'s keys for the program', TEST_OPTIONS, async (t) => {
  const program = scratch(t, 'key.asm', [
    '        .ORIG x3000',
    '        GETC',
    '        STI R0, VIDEO',
    '        HALT',
    'VIDEO   .FILL xC000',
    '        .END',
  ].join('\n'));
  const s = await displaySession(t);
  await s.launch({ program, display: true });
  await s.event(DISPLAY_EVENT);
  await s.dc.continueRequest({ threadId: 1 });
  const answer = await s.dc.customRequest(KEY_REQUEST, { key: 0x7c });
  assert.equal(answer.body.keys, 1);
  assert.equal((await s.stopped()).reason, 'exit');
  const frame = (await s.event(DISPLAY_EVENT)).body;
  // '|' (x7C) in PennSim's 5-5-5 colours: green 3, blue 28.
  assert.deepEqual([...rgbOf(frame).subarray(0, 3)], [0, 3 << 3, 28 << 3]);
  await assert.rejects(s.dc.customRequest(KEY_REQUEST, { key: 'x' }), /character code/);
});
