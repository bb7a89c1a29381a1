// Checks of the extension's manifest and grammars that need no VS Code: the files package.json
// names exist and agree with it, the launch schema has every attribute the adapter accepts, and
// each TextMate grammar, loaded by the same engine VS Code uses (vscode-textmate with the
// Oniguruma regex library), gives sample lines of each dialect the scopes they should have.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const textmate = require('vscode-textmate');
const oniguruma = require('vscode-oniguruma');

const root = path.join(__dirname, '..');
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const contributes = manifest.contributes;

const LANGUAGE_IDS = ['lc3-asm', 'mips-asm', 'simplerisc-asm'];

// The launch attributes `asmdbg dap` accepts: the schema must offer exactly these.
const LAUNCH_ATTRIBUTES = [
  'program', 'isa', 'profile', 'strict', 'ignorePrivilege', 'entry',
  'project', 'startAtMain', 'delaySlots', 'seed', 'virtualTime', 'args',
  'noMul', 'memSize', 'poke', 'pokeFile', 'input', 'stopOnEntry', 'console',
  'historyMb', 'noHistory', 'asmdbgPath', 'display', 'bitmap', 'mmio', 'keys',
  'dialogs', 'interpret', 'cwd', 'speed',
];

// What VS Code itself puts in every configuration.
// Attributes VS Code itself reads in every configuration.
const GENERIC_ATTRIBUTES = ['type', 'request', 'name', 'preLaunchTask', 'postDebugTask', 'debugServer'];

function readJson(relative) {
  return JSON.parse(fs.readFileSync(path.join(root, relative), 'utf8'));
}

const debuggerContribution = contributes.debuggers.find((d) => d.type === 'asmdbg');
const launchSchema = debuggerContribution && debuggerContribution.configurationAttributes.launch;

test('the manifest names the extension as published', () => {
  assert.equal(manifest.name, 'asmdbg');
  assert.equal(manifest.publisher, 'asmdbg');
  assert.equal(manifest.version, '0.1.0');
  assert.equal(manifest.license, 'MIT');
  assert.equal(manifest.engines.vscode, '^1.80.0');
  assert.equal(manifest.main, './extension.js');
  assert.ok(fs.existsSync(path.join(root, manifest.main)), 'main file exists');
  assert.equal(manifest.dependencies, undefined, 'no runtime dependencies: only the VS Code API');
  for (const file of ['README.md', 'LICENSE']) {
    assert.ok(fs.existsSync(path.join(root, file)), `${file} exists (vsce needs it)`);
  }
});

test('activation events cover debugging and every language', () => {
  const events = manifest.activationEvents;
  assert.ok(events.includes('onDebugResolve:asmdbg'));
  assert.ok(events.includes('onDebugDynamicConfigurations:asmdbg'));
  for (const id of LANGUAGE_IDS) {
    assert.ok(events.includes(`onLanguage:${id}`), `onLanguage:${id}`);
  }
});

test('each language has its configuration file and line comment', () => {
  const expectedComment = { 'lc3-asm': ';', 'mips-asm': '#', 'simplerisc-asm': '@' };
  assert.deepEqual(contributes.languages.map((l) => l.id).sort(), [...LANGUAGE_IDS].sort());
  for (const language of contributes.languages) {
    assert.ok(language.aliases.length > 0, `${language.id} has an alias`);
    const config = readJson(language.configuration);
    assert.equal(config.comments.lineComment, expectedComment[language.id], language.id);
    // The debugger's hover evaluates the word under the mouse: it must be a whole operand.
    assert.ok(new RegExp(config.wordPattern).test('x'), `${language.id} wordPattern compiles`);
    if (language.firstLine) {
      new RegExp(language.firstLine); // throws if VS Code could not compile it either
    }
  }
});

test('language associations pick the right dialect', () => {
  const byId = Object.fromEntries(contributes.languages.map((l) => [l.id, l]));
  assert.ok(byId['mips-asm'].extensions.includes('.s'));
  assert.ok(byId['mips-asm'].extensions.includes('.mips'));
  assert.ok(byId['lc3-asm'].extensions.includes('.lc3'));
  assert.ok(byId['simplerisc-asm'].extensions.includes('.sr'));
  for (const language of contributes.languages) {
    const extensions = language.extensions || [];
    assert.ok(!extensions.includes('.asm'), '.asm is ambiguous: no language claims it');
    assert.ok(!extensions.includes('.obj'), '.obj is binary: no language');
  }
  const firstLine = (id) => new RegExp(byId[id].firstLine);
  assert.ok(firstLine('lc3-asm').test('        .ORIG x3000'));
  assert.ok(firstLine('lc3-asm').test('; Nim for the LC-3'));
  assert.ok(firstLine('mips-asm').test('\t.data'));
  assert.ok(firstLine('mips-asm').test('# four_in_a_row.asm - in MIPS (MARS 4.5).'));
  assert.ok(firstLine('simplerisc-asm').test('@ tictactoe.asm - RISC-Tac-Toe'));
  assert.ok(firstLine('simplerisc-asm').test('.main:'));
  // A shell script's first line is no assembly.
  for (const id of LANGUAGE_IDS) {
    assert.ok(!firstLine(id).test('#!/bin/sh'), `${id} leaves shebang lines alone`);
  }
  // Each program of this repository is under a folder that names its ISA.
  const patterns = (id) => byId[id].filenamePatterns.join(' ');
  assert.match(patterns('lc3-asm'), /\*\*\/lc3\/\*\*\/\*\.asm/);
  assert.match(patterns('mips-asm'), /\*\*\/mips\/\*\*\/\*\.asm/);
  assert.match(patterns('simplerisc-asm'), /\*\*\/simplerisc\/\*\*\/\*\.asm/);
});

test('every grammar file exists, parses and has the contributed scope name', () => {
  assert.deepEqual(contributes.grammars.map((g) => g.language).sort(), [...LANGUAGE_IDS].sort());
  for (const grammar of contributes.grammars) {
    const json = readJson(grammar.path);
    assert.equal(json.scopeName, grammar.scopeName, grammar.path);
    assert.ok(json.patterns.length > 0, `${grammar.path} has patterns`);
  }
});

test('breakpoints and the debugger cover the three languages', () => {
  assert.deepEqual(contributes.breakpoints.map((b) => b.language).sort(), [...LANGUAGE_IDS].sort());
  assert.ok(debuggerContribution, 'a debugger of type asmdbg');
  assert.equal(debuggerContribution.label, 'asmdbg (LC-3, MIPS, SimpleRISC)');
  assert.deepEqual([...debuggerContribution.languages].sort(), [...LANGUAGE_IDS].sort());
});

test('the launch schema has exactly the adapter attributes', () => {
  assert.deepEqual(Object.keys(launchSchema.properties).sort(), [...LAUNCH_ATTRIBUTES].sort());
  assert.deepEqual(launchSchema.required, ['program']);
  const p = launchSchema.properties;
  assert.deepEqual(p.program.type, ['string', 'array']);
  assert.equal(p.program.default, '${file}');
  assert.deepEqual(p.isa.enum, ['lc3', 'mips', 'simplerisc']);
  assert.deepEqual(p.profile.enum, ['patt', 'lc3tools', 'lc3sim', 'pennsim']);
  assert.equal(p.profile.default, 'patt');
  assert.deepEqual(p.console.enum, ['internalConsole', 'integratedTerminal']);
  assert.equal(p.console.default, 'integratedTerminal');
  assert.equal(p.stopOnEntry.default, true);
  assert.equal(p.historyMb.default, 256);
  for (const name of ['seed', 'memSize', 'historyMb']) {
    assert.equal(p[name].type, 'integer', name);
  }
  for (const name of ['strict', 'ignorePrivilege', 'project', 'startAtMain', 'delaySlots',
    'virtualTime', 'noMul', 'stopOnEntry', 'noHistory', 'display', 'mmio', 'interpret']) {
    assert.equal(p[name].type, 'boolean', name);
  }
  for (const name of ['args', 'poke', 'pokeFile']) {
    assert.equal(p[name].type, 'array', name);
    assert.equal(p[name].items.type, 'string', name);
  }
  assert.deepEqual(p.dialogs.enum, ['console', 'stderr']);
  for (const name of ['entry', 'input', 'asmdbgPath', 'bitmap', 'keys', 'dialogs', 'cwd']) {
    assert.equal(p[name].type, 'string', name);
  }
  for (const [name, schema] of Object.entries(p)) {
    assert.ok(schema.markdownDescription || schema.description, `${name} is described`);
  }
  const pokePattern = new RegExp(p.poke.items.pattern);
  assert.ok(pokePattern.test('1000=1,2,0'));
  assert.ok(!pokePattern.test('1000'));
  // What --bitmap takes: a size, unit= and base=, in any order, each optional.
  const bitmapPattern = new RegExp(p.bitmap.pattern);
  for (const good of ['512x256,unit=8,base=gp', 'unit=8x4', 'base=0x10010000, 64x64']) {
    assert.ok(bitmapPattern.test(good), good);
  }
  for (const bad of ['8', 'unit=', 'size=64x64', '64x64,,unit=8']) {
    assert.ok(!bitmapPattern.test(bad), bad);
  }
});

test('the display panel: its command is contributed and its page is packaged', () => {
  assert.deepEqual(contributes.commands.map((c) => c.command), ['asmdbg.showDisplay', 'asmdbg.stepOutBack']);
  const back = contributes.menus.commandPalette.find((m) => m.command === 'asmdbg.stepOutBack');
  assert.equal(back.when, 'debugType == asmdbg && inDebugMode');
  const palette = contributes.menus.commandPalette.find((m) => m.command === 'asmdbg.showDisplay');
  assert.equal(palette.when, 'debugType == asmdbg');
  const ignored = fs.readFileSync(path.join(root, '.vscodeignore'), 'utf8')
    .split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  for (const file of ['display.js', 'display/panel.html', 'display/panel.js']) {
    assert.ok(fs.existsSync(path.join(root, file)), `${file} exists`);
    assert.ok(!ignored.some((pattern) => file.startsWith(pattern.replace(/\*+$/, ''))), `${file} is packaged`);
  }
});

function assertOnlySchemaAttributes(config, where) {
  const allowed = new Set([...LAUNCH_ATTRIBUTES, ...GENERIC_ATTRIBUTES]);
  for (const key of Object.keys(config)) {
    assert.ok(allowed.has(key), `${where}: '${key}' is not a launch attribute`);
  }
  assert.equal(config.type, 'asmdbg', `${where}: type`);
  assert.equal(config.request, 'launch', `${where}: request`);
  assert.ok(config.program, `${where}: program`);
}

test('initial configurations and snippets use only schema attributes', () => {
  assert.ok(debuggerContribution.initialConfigurations.length > 0);
  for (const config of debuggerContribution.initialConfigurations) {
    assertOnlySchemaAttributes(config, 'initialConfigurations');
    assert.equal(config.program, '${file}');
  }
  const labels = debuggerContribution.configurationSnippets.map((s) => s.label);
  assert.deepEqual(labels, [
    'asmdbg: LC-3 program',
    'asmdbg: MIPS program (MARS)',
    'asmdbg: SimpleRISC program',
  ]);
  const isas = [];
  for (const snippet of debuggerContribution.configurationSnippets) {
    assertOnlySchemaAttributes(snippet.body, snippet.label);
    isas.push(snippet.body.isa);
  }
  assert.deepEqual(isas, ['lc3', 'mips', 'simplerisc']);
});

test('the repository launch.json keeps the gdb configurations and adds valid asmdbg ones', (t) => {
  const launchPath = path.join(root, '..', '..', '.vscode', 'launch.json');
  if (!fs.existsSync(launchPath)) {
    t.skip('no .vscode/launch.json beside this folder');
    return;
  }
  const launch = JSON.parse(fs.readFileSync(launchPath, 'utf8'));
  const ours = launch.configurations.filter((c) => c.type === 'asmdbg');
  assert.ok(launch.configurations.some((c) => c.type === 'cppdbg'), 'cppdbg configurations kept');
  assert.ok(launch.configurations.some((c) => c.type === 'gdb'), 'Native Debug ones kept');
  const programs = ours.map((c) => c.program).sort();
  assert.deepEqual(programs, [
    '${workspaceFolder}/programs/lc3/dots.asm',
    '${workspaceFolder}/programs/mips/four_in_a_row.asm',
    '${workspaceFolder}/programs/simplerisc/tictactoe.asm',
  ]);
  for (const config of ours) {
    assertOnlySchemaAttributes(config, config.name);
    assert.equal(config.stopOnEntry, true, config.name);
    assert.equal(config.console, 'integratedTerminal', config.name);
    const file = config.program.replace('${workspaceFolder}', path.join(root, '..', '..'));
    assert.ok(fs.existsSync(file), `${config.program} exists`);
  }
  const simplerisc = ours.find((c) => c.isa === 'simplerisc');
  assert.equal(simplerisc.noMul, true);
  assert.equal(simplerisc.poke.length, 1);
  assert.equal(simplerisc.poke[0].split('=')[1].split(',').length, 36, 'a 6x6 board');
});

// ---------------------------------------------------------------------------------------------
// Grammars, tokenized by VS Code's own engine.

let registryPromise;

function registry() {
  if (!registryPromise) {
    const wasm = fs.readFileSync(require.resolve('vscode-oniguruma/release/onig.wasm'));
    const bytes = wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength);
    const onigLib = oniguruma.loadWASM(bytes).then(() => ({
      createOnigScanner: (patterns) => new oniguruma.OnigScanner(patterns),
      createOnigString: (text) => new oniguruma.OnigString(text),
    }));
    const paths = Object.fromEntries(contributes.grammars.map((g) => [g.scopeName, g.path]));
    registryPromise = Promise.resolve(new textmate.Registry({
      onigLib,
      loadGrammar: async (scopeName) => {
        const file = paths[scopeName];
        if (!file) return null;
        const text = fs.readFileSync(path.join(root, file), 'utf8');
        return textmate.parseRawGrammar(text, path.join(root, file));
      },
    }));
  }
  return registryPromise;
}

async function grammarFor(language) {
  const contribution = contributes.grammars.find((g) => g.language === language);
  const grammar = await (await registry()).loadGrammar(contribution.scopeName);
  assert.ok(grammar, `grammar of ${language} loads`);
  return grammar;
}

// Tokenizes `lines` (carrying the state from line to line) and returns, per line, the list of
// {text, scopes} tokens.
async function tokenize(language, lines) {
  const grammar = await grammarFor(language);
  let state = textmate.INITIAL;
  return lines.map((line) => {
    const result = grammar.tokenizeLine(line, state);
    state = result.ruleStack;
    return result.tokens.map((t) => ({
      text: line.slice(t.startIndex, t.endIndex),
      scopes: t.scopes,
    }));
  });
}

// The scopes of each token that `fragment` (its nth appearance, from 0) covers, in one
// tokenized line: one list of scopes per token.
function scopesOf(tokens, fragment, nth) {
  const line = tokens.map((t) => t.text).join('');
  let at = -1;
  for (let i = 0; i <= nth; i++) {
    at = line.indexOf(fragment, at + 1);
    assert.ok(at >= 0, `'${fragment}' (#${i + 1}) is in '${line}'`);
  }
  const covered = [];
  let offset = 0;
  for (const token of tokens) {
    const end = offset + token.text.length;
    if (end > at && offset < at + fragment.length) {
      covered.push(token.scopes);
    }
    offset = end;
  }
  return covered;
}

// Each expectation is [fragment, scope] or [fragment, scope, nth]: every token of the fragment
// has a scope that starts with `scope`, or, when `scope` starts with '!', none has.
function checkLine(tokens, [fragment, expected, nth = 0]) {
  const negated = expected.startsWith('!');
  const prefix = negated ? expected.slice(1) : expected;
  for (const scopes of scopesOf(tokens, fragment, nth)) {
    const has = scopes.some((s) => s.startsWith(prefix));
    const should = negated ? 'should not' : 'should';
    assert.equal(has, !negated,
      `'${fragment}' ${should} have a ${prefix}* scope; it has ${scopes.join(' ')}`);
  }
}

// Tokenizes the lines of `cases` in order (a block comment goes on from line to line) and
// checks each line's expectations.
async function checkGrammar(language, cases) {
  const tokenized = await tokenize(language, cases.map(([line]) => line));
  cases.forEach(([, expectations], i) => {
    for (const expectation of expectations) {
      checkLine(tokenized[i], expectation);
    }
  });
}

test('LC-3 grammar', () => checkGrammar('lc3-asm', [
  ['LOOP    ADD R1, R1, #-1 ; count down', [
    ['LOOP', 'entity.name.function.label.lc3'],
    ['ADD', 'keyword.other.mnemonic.lc3'],
    ['ADD', '!entity.name'],
    ['R1', 'variable.language.register.lc3'],
    ['R1', 'variable.language.register.lc3', 1],
    ['#-1', 'constant.numeric.decimal.lc3'],
    ['; count down', 'comment.line.semicolon.lc3'],
  ]],
  ['        .ORIG x3000', [
    ['.ORIG', 'keyword.control.directive.lc3'],
    ['x3000', 'constant.numeric.hex.lc3'],
  ]],
  // A ; inside a string is text, not a comment.
  ['MSG     .STRINGZ "Hi; there\\n"', [
    ['MSG', 'entity.name.function.label.lc3'],
    ['.STRINGZ', 'keyword.control.directive.lc3'],
    ['Hi; there', 'string.quoted.double.lc3'],
    ['Hi; there', '!comment'],
    ['\\n', 'constant.character.escape.lc3'],
  ]],
  // An indented opcode is not a label; an operand label is a reference.
  ['        BRnzp LOOP', [
    ['BRnzp', 'keyword.other.mnemonic.lc3'],
    ['BRnzp', '!entity.name'],
    ['LOOP', 'variable.other.label.lc3'],
  ]],
  ['DATA    .FILL b1010 ; x-10 and 12', [
    ['b1010', 'constant.numeric.binary.lc3'],
    ['x-10', 'comment.line'],
  ]],
  ['done:   and r0, r0, x-10', [
    ['done', 'entity.name.function.label.lc3'],
    ['and', 'keyword.other.mnemonic.lc3'],
    ['r0', 'variable.language.register.lc3'],
    ['x-10', 'constant.numeric.hex.lc3'],
  ]],
  ['        TRAP x25', [
    ['TRAP', 'keyword.other.mnemonic.lc3'],
    ['x25', 'constant.numeric.hex.lc3'],
  ]],
  // Trap aliases are opcodes even at the start of a line.
  ['HALT', [
    ['HALT', 'keyword.other.mnemonic.trap.lc3'],
    ['HALT', '!entity.name'],
  ]],
  ['\tPUTS', [['PUTS', 'keyword.other.mnemonic.trap.lc3']]],
]));

test('MIPS grammar', () => checkGrammar('mips-asm', [
  ['loop:  addi $t0, $t0, 0x10  # step', [
    ['loop', 'entity.name.function.label.mips'],
    ['addi', 'keyword.other.mnemonic.mips'],
    ['$t0', 'variable.language.register.mips'],
    ['$t0', 'variable.language.register.mips', 1],
    ['0x10', 'constant.numeric.hex.mips'],
    ['# step', 'comment.line.number-sign.mips'],
  ]],
  ['\t.data', [['.data', 'keyword.control.directive.mips']]],
  // A # inside a string is text; escapes are marked; the comment after the string is one.
  ['msg:\t.asciiz "Score # \\"1\\"\\n"   # not in the string', [
    ['msg', 'entity.name.function.label.mips'],
    ['.asciiz', 'keyword.control.directive.mips'],
    ['Score # ', 'string.quoted.double.mips'],
    ['Score # ', '!comment'],
    ['\\"', 'constant.character.escape.mips'],
    ['\\n', 'constant.character.escape.mips'],
    ['# not in the string', 'comment.line.number-sign.mips'],
  ]],
  ["\tli $a0, '\\n'", [
    ['li', 'keyword.other.mnemonic.pseudo.mips'],
    ['\\n', 'constant.character.escape.mips'],
    ['\\n', 'string.quoted.single.mips'],
  ]],
  ['\tlw $ra, 4($sp)', [
    ['lw', 'keyword.other.mnemonic.mips'],
    ['$ra', 'variable.language.register.mips'],
    ['4', 'constant.numeric.decimal.mips'],
    ['$sp', 'variable.language.register.mips'],
  ]],
  ['\tblt $s7, $31, done', [
    ['blt', 'keyword.other.mnemonic.pseudo.mips'],
    ['$s7', 'variable.language.register.mips'],
    ['$31', 'variable.language.register.mips'],
    ['done', 'variable.other.label.mips'],
  ]],
  ['\tadd.s $f12, $f0, $f1', [
    ['add.s', 'keyword.other.mnemonic.mips'],
    ['$f12', 'variable.language.register.float.mips'],
  ]],
  ['board:\t.word 0:42, -7, 3.5e2', [
    ['board', 'entity.name.function.label.mips'],
    ['.word', 'keyword.control.directive.mips'],
    ['42', 'constant.numeric.decimal.mips'],
    ['-7', 'constant.numeric.decimal.mips'],
    ['3.5e2', 'constant.numeric.float.mips'],
  ]],
  ['\t.macro print_int (%n)', [
    ['.macro', 'keyword.control.directive.mips'],
    ['%n', 'variable.parameter.macro.mips'],
  ]],
  // Mnemonics are whole words.
  ['\tj addition', [
    ['j', 'keyword.other.mnemonic.mips'],
    ['addition', '!keyword'],
    ['addition', 'variable.other.label.mips'],
  ]],
]));

test('SimpleRISC grammar', () => checkGrammar('simplerisc-asm', [
  ['.hw_walk: add r1, r1, 1 @ next', [
    ['.hw_walk', 'entity.name.function.label.simplerisc'],
    ['add', 'keyword.other.mnemonic.simplerisc'],
    ['r1', 'variable.language.register.simplerisc'],
    ['1', 'constant.numeric.decimal.simplerisc', 2],
    ['@ next', 'comment.line.simplerisc'],
  ]],
  ['\tld r1, 1000[r1]', [
    ['ld', 'keyword.other.mnemonic.simplerisc'],
    ['1000', 'constant.numeric.decimal.simplerisc'],
    ['[', 'punctuation.section.brackets.simplerisc'],
    ['r1', 'variable.language.register.simplerisc', 1],
  ]],
  ['\t.print r0, sp, ra', [
    ['.print', 'keyword.control.directive.simplerisc'],
    ['sp', 'variable.language.register.simplerisc'],
    ['ra', 'variable.language.register.simplerisc'],
  ]],
  // The block comment goes on into the next line and ends there.
  ['/* a block', [['a block', 'comment.block.simplerisc']]],
  ['   comment */ movh r5, 0x1234', [
    ['comment', 'comment.block.simplerisc'],
    ['movh', 'keyword.other.mnemonic.simplerisc'],
    ['movh', '!comment'],
    ['0x1234', 'constant.numeric.hex.simplerisc'],
  ]],
  ['\tcall multiply // r1 = r1 * r2', [
    ['call', 'keyword.other.mnemonic.simplerisc'],
    ['multiply', 'variable.other.label.simplerisc'],
    ['// r1 = r1 * r2', 'comment.line.simplerisc'],
  ]],
  ['\tbeq .mul_done', [
    ['beq', 'keyword.other.mnemonic.simplerisc'],
    ['.mul_done', 'variable.other.label.simplerisc'],
  ]],
]));

test('every line of the repository programs tokenizes without an unscoped operand', async (t) => {
  const programs = path.join(root, '..', '..', 'programs');
  if (!fs.existsSync(programs)) {
    t.skip('no programs/ beside this folder');
    return;
  }
  const dirs = { lc3: 'lc3-asm', mips: 'mips-asm', simplerisc: 'simplerisc-asm' };
  let checked = 0;
  for (const [dir, language] of Object.entries(dirs)) {
    const folder = path.join(programs, dir);
    for (const name of fs.readdirSync(folder).filter((n) => n.endsWith('.asm'))) {
      const lines = fs.readFileSync(path.join(folder, name), 'utf8').split(/\r?\n/);
      const tokenized = await tokenize(language, lines);
      tokenized.forEach((tokens, i) => {
        for (const token of tokens) {
          // Only whitespace may be left with just the language's root scope.
          if (token.scopes.length === 1 && token.text.trim() !== '') {
            assert.fail(`${dir}/${name}:${i + 1}: '${token.text}' has no scope in: ${lines[i]}`);
          }
        }
      });
      checked++;
    }
  }
  assert.ok(checked >= 5, `checked ${checked} programs`);
});
