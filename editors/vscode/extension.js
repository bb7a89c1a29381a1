// The asmdbg extension: VS Code runs `asmdbg dap` as the debug adapter and talks the Debug
// Adapter Protocol with it over stdin/stdout. All the debugging is in asmdbg; this file only
// says which executable to start and fills in a launch configuration when there is none, and
// display.js shows the screen of a program with a display.
'use strict';

const vscode = require('vscode');
const fs = require('fs');
const path = require('path');
const { Displays } = require('./display');

const DEBUG_TYPE = 'asmdbg';

// The language modes this extension contributes and the ISA each one is written for.
const ISA_OF_LANGUAGE = {
  'lc3-asm': 'lc3',
  'mips-asm': 'mips',
  'simplerisc-asm': 'simplerisc',
};

function activate(context) {
  const provider = new ConfigurationProvider();
  // The platform's asmdbg inside the extension (the per-platform .vsix has one in bin/).
  const bundled = path.join(context.extensionPath || __dirname, 'bin',
    process.platform === 'win32' ? 'asmdbg.exe' : 'asmdbg');
  context.subscriptions.push(
    vscode.debug.registerDebugAdapterDescriptorFactory(DEBUG_TYPE, new AdapterFactory(bundled)),
    vscode.debug.registerDebugConfigurationProvider(DEBUG_TYPE, provider),
    // Lists "debug this file" entries in the Run and Debug view's dropdown.
    vscode.debug.registerDebugConfigurationProvider(
      DEBUG_TYPE,
      { provideDebugConfigurations: () => provider.dynamicConfigurations() },
      vscode.DebugConfigurationProviderTriggerKind.Dynamic,
    ),
  );
  new Displays(vscode).register(context);
  // The DAP steps back by line or instruction only: out of a function backwards (gdb's
  // reverse-finish) is asmdbg's own request.
  context.subscriptions.push(vscode.commands.registerCommand('asmdbg.stepOutBack', stepOutBack));
}

// asmdbg: Step Out Backwards, in the active asmdbg session: back to before the call of the
// function the program is in.
async function stepOutBack() {
  const session = vscode.debug.activeDebugSession;
  if (!session || session.type !== DEBUG_TYPE) {
    vscode.window.showErrorMessage('asmdbg: Step Out Backwards needs an asmdbg debug session.');
    return;
  }
  try {
    await session.customRequest('asmdbgStepOutBack', { threadId: 1 });
  } catch (e) {
    vscode.window.showErrorMessage(`asmdbg: ${e.message || e}`);
  }
}

function deactivate() {}

class AdapterFactory {
  constructor(bundled) {
    this.bundled = bundled;
    this.log = undefined;
  }

  createDebugAdapterDescriptor(session) {
    const configured = session.configuration.asmdbgPath
      || vscode.workspace.getConfiguration('asmdbg', session.workspaceFolder).get('path')
      || 'asmdbg';
    // Relative program paths in launch.json are relative to the workspace folder, so the
    // adapter runs there; a relative executable path (target/release/asmdbg) is too.
    const folder = session.workspaceFolder;
    const cwd = folder && folder.uri.scheme === 'file' ? folder.uri.fsPath : undefined;
    let command = findExecutable(configured, cwd);
    let whose = 'found as';
    // No asmdbg of the user's own (on PATH, or named in the settings): the extension's.
    if (!command && configured === 'asmdbg' && isFile(this.bundled)) {
      command = this.bundled;
      whose = 'the one inside the extension, as';
      ensureExecutable(command);
    }
    if (!command) {
      // VS Code's own message would only say "spawn asmdbg ENOENT".
      throw new Error(`asmdbg: cannot find the executable '${configured}'. Install asmdbg `
        + '(cargo install --path . in its repository) or point the asmdbg.path setting or the '
        + "launch configuration's asmdbgPath at it.");
    }
    // Which asmdbg debugs, in the asmdbg output channel (View > Output).
    this.log = this.log || vscode.window.createOutputChannel('asmdbg');
    this.log.appendLine(`asmdbg: debugging with ${command} (${whose} '${configured}')`);
    return new vscode.DebugAdapterExecutable(command, ['dap'], cwd ? { cwd } : {});
  }
}

class ConfigurationProvider {
  // Before variables such as ${file} are substituted: F5 without a launch.json, or a
  // configuration without a program, debugs the file in the active editor.
  resolveDebugConfiguration(folder, config) {
    const isEmpty = !config.type && !config.request && !config.name;
    if (!isEmpty && config.program) {
      return config;
    }
    const active = activeProgram();
    if (!active) {
      vscode.window.showErrorMessage('asmdbg: open an LC-3, MIPS or SimpleRISC program (or an '
        + 'LC-3 .obj file) to debug, or name one with "program" in launch.json.');
      return undefined; // cancels the launch
    }
    if (isEmpty) {
      return launchConfiguration(active);
    }
    config.program = active.path;
    if (!config.isa && active.isa) {
      config.isa = active.isa;
    }
    return config;
  }

  // After substitution the program is a real path: when it is open in one of this extension's
  // language modes, that mode names the ISA (asmdbg would otherwise guess it from the text, and
  // the user may have picked the mode of an ambiguous .asm file by hand).
  resolveDebugConfigurationWithSubstitutedVariables(folder, config) {
    if (!config.isa && typeof config.program === 'string') {
      const base = folder && folder.uri.scheme === 'file' ? folder.uri.fsPath : '';
      const isa = isaOfPath(path.resolve(base, config.program));
      if (isa) {
        config.isa = isa;
      }
    }
    return config;
  }

  // One configuration per open program in one of the three language modes.
  dynamicConfigurations() {
    const seen = new Set();
    const configs = [];
    for (const document of vscode.workspace.textDocuments) {
      const isa = ISA_OF_LANGUAGE[document.languageId];
      if (isa && document.uri.scheme === 'file' && !seen.has(document.uri.fsPath)) {
        seen.add(document.uri.fsPath);
        configs.push(launchConfiguration({ path: document.uri.fsPath, isa }));
      }
    }
    return configs;
  }
}

function launchConfiguration(program) {
  const config = {
    type: DEBUG_TYPE,
    request: 'launch',
    name: `asmdbg: ${path.basename(program.path)}`,
    program: program.path,
    stopOnEntry: true,
  };
  if (program.isa) {
    config.isa = program.isa;
  }
  return config;
}

// The file to debug: the active text editor's, or the active tab's when it shows a binary LC-3
// object file (VS Code opens those in no text editor).
function activeProgram() {
  const editor = vscode.window.activeTextEditor;
  if (editor && editor.document.uri.scheme === 'file') {
    const { uri, languageId } = editor.document;
    return { path: uri.fsPath, isa: ISA_OF_LANGUAGE[languageId] || isaOfObject(uri.fsPath) };
  }
  const tab = vscode.window.tabGroups && vscode.window.tabGroups.activeTabGroup.activeTab;
  const uri = tab && tab.input && tab.input.uri;
  if (uri && uri.scheme === 'file' && isaOfObject(uri.fsPath)) {
    return { path: uri.fsPath, isa: isaOfObject(uri.fsPath) };
  }
  return undefined;
}

// The ISA of the language mode an open document of `file` (an absolute path) is in.
function isaOfPath(file) {
  const document = vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'file'
    && path.resolve(d.uri.fsPath) === file);
  return (document && ISA_OF_LANGUAGE[document.languageId]) || isaOfObject(file);
}

// Only LC-3 has object files asmdbg loads.
function isaOfObject(file) {
  return file.toLowerCase().endsWith('.obj') ? 'lc3' : undefined;
}

// A command with a directory part is a file (a relative one is taken from `base`); a bare name
// is looked up on PATH (with the PATHEXT extensions on Windows). Undefined when there is none.
function findExecutable(command, base) {
  if (command.includes('/') || command.includes('\\')) {
    const file = path.resolve(base || '', command);
    return isFile(file) ? file : undefined;
  }
  const extensions = process.platform === 'win32'
    ? ['', ...(process.env.PATHEXT || '.EXE;.CMD;.BAT').split(';')]
    : [''];
  for (const dir of (process.env.PATH || '').split(path.delimiter)) {
    for (const extension of extensions) {
      const candidate = path.join(dir, command + extension);
      if (dir && isFile(candidate)) {
        return candidate;
      }
    }
  }
  return undefined;
}

// An extension folder unpacked by a tool that drops Unix permissions leaves the binary
// without its executable bit; spawning it would then fail with EACCES.
function ensureExecutable(file) {
  if (process.platform === 'win32') {
    return;
  }
  try {
    fs.accessSync(file, fs.constants.X_OK);
  } catch {
    fs.chmodSync(file, 0o755);
  }
}

function isFile(file) {
  try {
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

module.exports = { activate, deactivate };
