// extension.js against a stand-in for the `vscode` module (the real one exists only inside VS
// Code): which adapter executable it starts, and the launch configurations it fills in.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const Module = require('node:module');

// The stand-in: just the API extension.js uses, recording what it is given.
function makeVscode() {
  const state = {
    errors: [],
    log: [],
    settings: { path: 'asmdbg' },
    activeTextEditor: undefined,
    activeTab: undefined,
    textDocuments: [],
    factories: {},
    providers: [],
    // The display panel's listeners (display.js; tested in display.test.js).
    listeners: {},
    commands: {},
  };
  const listen = (name) => (listener) => {
    state.listeners[name] = listener;
    return { dispose() {} };
  };
  const vscode = {
    state,
    DebugConfigurationProviderTriggerKind: { Initial: 1, Dynamic: 2 },
    DebugAdapterExecutable: class {
      constructor(command, args, options) {
        Object.assign(this, { command, args, options });
      }
    },
    debug: {
      registerDebugAdapterDescriptorFactory: (type, factory) => {
        state.factories[type] = factory;
        return { dispose() {} };
      },
      registerDebugConfigurationProvider: (type, provider, kind) => {
        state.providers.push({ type, provider, kind: kind || 1 });
        return { dispose() {} };
      },
      onDidReceiveDebugSessionCustomEvent: listen('customEvent'),
      onDidTerminateDebugSession: listen('terminated'),
    },
    commands: {
      registerCommand: (name, callback) => {
        state.commands[name] = callback;
        return { dispose() {} };
      },
    },
    workspace: {
      getConfiguration: (section) => ({
        get: (key) => (section === 'asmdbg' ? state.settings[key] : undefined),
      }),
      get textDocuments() {
        return state.textDocuments;
      },
    },
    window: {
      createOutputChannel: (name) => ({
        appendLine: (line) => state.log.push(`${name}: ${line}`),
      }),
      showErrorMessage: (message) => {
        state.errors.push(message);
        return Promise.resolve(undefined);
      },
      get activeTextEditor() {
        return state.activeTextEditor;
      },
      get tabGroups() {
        return { activeTabGroup: { activeTab: state.activeTab } };
      },
    },
  };
  return vscode;
}

function fileUri(fsPath) {
  return { scheme: 'file', fsPath, path: fsPath };
}

function document(fsPath, languageId) {
  return { uri: fileUri(fsPath), languageId };
}

// A fresh copy of extension.js wired to a fresh stand-in, activated (installed in
// `extensionPath` when given).
function load(installedIn) {
  const vscode = makeVscode();
  const extensionPath = require.resolve('../extension.js');
  delete require.cache[extensionPath];
  const originalLoad = Module._load;
  Module._load = function (request, ...rest) {
    return request === 'vscode' ? vscode : originalLoad.call(this, request, ...rest);
  };
  let extension;
  try {
    extension = require(extensionPath);
  } finally {
    Module._load = originalLoad;
  }
  extension.activate({ subscriptions: [], extensionPath: installedIn });
  const { state } = vscode;
  return {
    state,
    vscode,
    factory: state.factories.asmdbg,
    provider: state.providers.find((p) => p.type === 'asmdbg' && p.kind === 1).provider,
    dynamic: state.providers.find((p) => p.type === 'asmdbg' && p.kind === 2).provider,
  };
}

function session(configuration, folder) {
  return { configuration, workspaceFolder: folder && { uri: fileUri(folder) } };
}

const temporaryDirs = [];
test.after(() => {
  for (const dir of temporaryDirs) {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

function temporaryDir() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'asmdbg-ext-'));
  temporaryDirs.push(dir);
  return dir;
}

// A temporary executable file named `name`, in its own folder.
function fakeExecutable(name) {
  const dir = temporaryDir();
  const file = path.join(dir, name);
  fs.writeFileSync(file, '#!/bin/sh\n', { mode: 0o755 });
  return { dir, file };
}

test('activation registers the adapter factory and both configuration providers', () => {
  const { state } = load();
  assert.ok(state.factories.asmdbg);
  assert.deepEqual(state.providers.map((p) => [p.type, p.kind]), [['asmdbg', 1], ['asmdbg', 2]]);
  // The display panel: it listens for the adapter's frames and offers its command.
  assert.deepEqual(Object.keys(state.listeners).sort(), ['customEvent', 'terminated']);
  assert.deepEqual(Object.keys(state.commands), ['asmdbg.showDisplay', 'asmdbg.stepOutBack']);
});

test('Step Out Backwards asks the active asmdbg session, and says why it cannot', async () => {
  const { state, vscode } = load();
  const sent = [];
  vscode.debug.activeDebugSession = undefined;
  await state.commands['asmdbg.stepOutBack']();
  assert.match(state.errors.pop(), /needs an asmdbg debug session/);
  vscode.debug.activeDebugSession = {
    type: 'asmdbg',
    customRequest: async (command, args) => {
      sent.push([command, args]);
      if (sent.length > 1) {
        throw new Error('this is the outermost frame: there is nothing to step out to');
      }
      return {};
    },
  };
  await state.commands['asmdbg.stepOutBack']();
  assert.deepEqual(sent, [['asmdbgStepOutBack', { threadId: 1 }]]);
  assert.equal(state.errors.length, 0);
  await state.commands['asmdbg.stepOutBack']();
  assert.match(state.errors.pop(), /outermost frame/);
});

test('the adapter is `asmdbg dap` from asmdbgPath, which overrides the setting', () => {
  const { state, factory } = load();
  const fromSetting = fakeExecutable('asmdbg-setting');
  const fromConfig = fakeExecutable('asmdbg-config');
  state.settings.path = fromSetting.file;

  let descriptor = factory.createDebugAdapterDescriptor(session({ program: 'a.asm' }, '/work'));
  assert.equal(descriptor.command, fromSetting.file);
  assert.deepEqual(descriptor.args, ['dap']);
  assert.deepEqual(descriptor.options, { cwd: '/work' });

  descriptor = factory.createDebugAdapterDescriptor(
    session({ program: 'a.asm', asmdbgPath: fromConfig.file }, '/work'));
  assert.equal(descriptor.command, fromConfig.file);
  assert.deepEqual(descriptor.args, ['dap']);
});

test('a bare command name is found on PATH, a relative path in the workspace folder', () => {
  const { state, factory } = load();
  const onPath = fakeExecutable('asmdbg');
  const savedPath = process.env.PATH;
  process.env.PATH = [onPath.dir, savedPath].join(path.delimiter);
  try {
    state.settings.path = 'asmdbg';
    const descriptor = factory.createDebugAdapterDescriptor(session({ program: 'a.asm' }));
    assert.equal(descriptor.command, onPath.file);
    assert.deepEqual(descriptor.options, {}, 'no workspace folder: no cwd');
  } finally {
    process.env.PATH = savedPath;
  }
  const workspace = temporaryDir();
  fs.mkdirSync(path.join(workspace, 'target', 'release'), { recursive: true });
  const built = path.join(workspace, 'target', 'release', 'asmdbg');
  fs.writeFileSync(built, '', { mode: 0o755 });
  const descriptor = factory.createDebugAdapterDescriptor(
    session({ program: 'a.asm', asmdbgPath: 'target/release/asmdbg' }, workspace));
  assert.equal(descriptor.command, built);
});

test("without the user's own asmdbg, the extension's runs, and the log says which", () => {
  const installed = temporaryDir();
  fs.mkdirSync(path.join(installed, 'bin'));
  const name = process.platform === 'win32' ? 'asmdbg.exe' : 'asmdbg';
  const bundled = path.join(installed, 'bin', name);
  // Unpacked without its executable bit: the extension restores it before running it.
  fs.writeFileSync(bundled, '', { mode: 0o644 });
  const savedPath = process.env.PATH;
  process.env.PATH = temporaryDir();
  try {
    const { state, factory } = load(installed);
    const descriptor = factory.createDebugAdapterDescriptor(session({ program: 'a.asm' }));
    assert.equal(descriptor.command, bundled);
    if (process.platform !== 'win32') {
      assert.equal(fs.statSync(bundled).mode & 0o111, 0o111);
    }
    assert.deepEqual(state.log, [
      `asmdbg: asmdbg: debugging with ${bundled} (the one inside the extension, as 'asmdbg')`,
    ]);
    // One on PATH is the user's choice and comes first.
    const onPath = fakeExecutable('asmdbg');
    process.env.PATH = onPath.dir;
    assert.equal(factory.createDebugAdapterDescriptor(session({ program: 'a.asm' })).command,
      onPath.file);
    assert.match(state.log[1], /debugging with .*asmdbg \(found as 'asmdbg'\)$/);
    // A path the user named is never replaced by the extension's.
    state.settings.path = '/no/such/asmdbg';
    assert.throws(() => factory.createDebugAdapterDescriptor(session({ program: 'a.asm' })));
  } finally {
    process.env.PATH = savedPath;
  }
});

test('a missing executable is refused with a message that names the setting', () => {
  const { state, factory } = load();
  const missing = 'asmdbg-that-does-not-exist-anywhere';
  state.settings.path = missing;
  assert.throws(
    () => factory.createDebugAdapterDescriptor(session({ program: 'a.asm' })),
    (error) => error.message.includes(`cannot find the executable '${missing}'`)
      && /asmdbg\.path/.test(error.message) && /asmdbgPath/.test(error.message),
  );
});

test('F5 without launch.json debugs the active file in its language mode', () => {
  const { state, provider } = load();
  state.activeTextEditor = { document: document('/g/dots.asm', 'lc3-asm') };
  const config = provider.resolveDebugConfiguration(undefined, {});
  assert.deepEqual(config, {
    type: 'asmdbg',
    request: 'launch',
    name: 'asmdbg: dots.asm',
    program: '/g/dots.asm',
    isa: 'lc3',
    stopOnEntry: true,
  });
  assert.deepEqual(state.errors, []);
});

test('each language mode gives its ISA; plain text leaves it to asmdbg', () => {
  const { state, provider } = load();
  const cases = { 'mips-asm': 'mips', 'simplerisc-asm': 'simplerisc', plaintext: undefined };
  for (const [languageId, isa] of Object.entries(cases)) {
    state.activeTextEditor = { document: document('/g/game.asm', languageId) };
    const config = provider.resolveDebugConfiguration(undefined, {});
    assert.equal(config.isa, isa, languageId);
    assert.equal(config.program, '/g/game.asm');
  }
});

test('an LC-3 object file in the active tab is debugged as LC-3', () => {
  const { state, provider } = load();
  state.activeTab = { input: { uri: fileUri('/g/nim.obj') } };
  const config = provider.resolveDebugConfiguration(undefined, {});
  assert.equal(config.program, '/g/nim.obj');
  assert.equal(config.isa, 'lc3');
  // Any other file shown in no text editor (an image, say) is no program.
  state.activeTab = { input: { uri: fileUri('/g/board.png') } };
  assert.equal(provider.resolveDebugConfiguration(undefined, {}), undefined);
  assert.equal(state.errors.length, 1);
});

test('with no file to debug the launch is refused with a clear message', () => {
  const { state, provider } = load();
  assert.equal(provider.resolveDebugConfiguration(undefined, {}), undefined);
  assert.equal(state.errors.length, 1);
  assert.match(state.errors[0], /open an LC-3, MIPS or SimpleRISC program/);
  // An untitled buffer has no file asmdbg could read.
  const untitled = { uri: { scheme: 'untitled', fsPath: 'Untitled-1' }, languageId: 'lc3-asm' };
  state.activeTextEditor = { document: untitled };
  const named = { type: 'asmdbg', request: 'launch', name: 'x' };
  assert.equal(provider.resolveDebugConfiguration(undefined, named), undefined);
  assert.equal(state.errors.length, 2);
});

test('a launch.json configuration is kept as written', () => {
  const { state, provider } = load();
  state.activeTextEditor = { document: document('/g/other.asm', 'mips-asm') };
  const written = {
    type: 'asmdbg',
    request: 'launch',
    name: 'dots',
    program: '${workspaceFolder}/dots.asm',
    profile: 'lc3tools',
  };
  const config = provider.resolveDebugConfiguration(undefined, { ...written });
  assert.deepEqual(config, written);
});

test('a configuration without a program gets the active file', () => {
  const { state, provider } = load();
  state.activeTextEditor = { document: document('/g/t.asm', 'simplerisc-asm') };
  const config = provider.resolveDebugConfiguration(undefined, {
    type: 'asmdbg', request: 'launch', name: 'x', noMul: true,
  });
  assert.equal(config.program, '/g/t.asm');
  assert.equal(config.isa, 'simplerisc');
  assert.equal(config.noMul, true);
});

test('after substitution the open document of the program names the ISA', () => {
  const { state, provider } = load();
  state.textDocuments = [document('/g/four.asm', 'mips-asm'), document('/g/x.txt', 'plaintext')];
  let config = provider.resolveDebugConfigurationWithSubstitutedVariables(undefined, {
    type: 'asmdbg', request: 'launch', name: 'x', program: '/g/four.asm',
  });
  assert.equal(config.isa, 'mips');
  // An ISA written in launch.json wins.
  config = provider.resolveDebugConfigurationWithSubstitutedVariables(undefined, {
    type: 'asmdbg', request: 'launch', name: 'x', program: '/g/four.asm', isa: 'lc3',
  });
  assert.equal(config.isa, 'lc3');
  // A relative program is relative to the workspace folder.
  config = provider.resolveDebugConfigurationWithSubstitutedVariables({ uri: fileUri('/g') }, {
    type: 'asmdbg', request: 'launch', name: 'x', program: 'four.asm',
  });
  assert.equal(config.isa, 'mips');
  // A program that is not open is left for asmdbg to recognise.
  config = provider.resolveDebugConfigurationWithSubstitutedVariables(undefined, {
    type: 'asmdbg', request: 'launch', name: 'x', program: '/g/closed.asm',
  });
  assert.equal(config.isa, undefined);
});

test('dynamic configurations list each open program once', () => {
  const { state, dynamic } = load();
  state.textDocuments = [
    document('/g/dots.asm', 'lc3-asm'),
    document('/g/dots.asm', 'lc3-asm'),
    document('/g/notes.md', 'markdown'),
    document('/g/t.asm', 'simplerisc-asm'),
  ];
  const configs = dynamic.provideDebugConfigurations(undefined);
  assert.deepEqual(configs.map((c) => [c.name, c.program, c.isa, c.type, c.request]), [
    ['asmdbg: dots.asm', '/g/dots.asm', 'lc3', 'asmdbg', 'launch'],
    ['asmdbg: t.asm', '/g/t.asm', 'simplerisc', 'asmdbg', 'launch'],
  ]);
});
