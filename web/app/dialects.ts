// The three assembly dialects for the editor: which one a file is written in (the marks the
// assembler's own detection looks for, targets/core/src/isa.rs), and a highlighter for each
// (comments, labels, the instruction's mnemonic, directives, registers, numbers, strings).

import { StreamLanguage, HighlightStyle, syntaxHighlighting, type StringStream } from '@codemirror/language';
import { tags } from '@lezer/highlight';

export type Isa = 'lc3' | 'mips' | 'simplerisc';

export const ISA_TITLES: Record<Isa, string> = {
  lc3: 'LC-3',
  mips: 'MIPS (MARS 4.5)',
  simplerisc: 'SimpleRISC',
};

/** Text without comments and strings, for looking at what a file holds. */
function code(text: string): string {
  return text
    .replace(/"(?:[^"\\\n]|\\.)*"/g, '""')
    .replace(/\/\*[\s\S]*?\*\//g, ' ')
    .replace(/(;|#|@|\/\/).*$/gm, '');
}

/** The dialect a file is written in, or undefined when it does not tell. */
export function detectIsa(text: string): Isa | undefined {
  // LC-3 first: its `;` comments may quote anything; `#` is LC-3's decimal mark too.
  const lc3 = text.replace(/"(?:[^"\\\n]|\\.)*"/g, '""').replace(/;.*$/gm, '');
  if (/^\s*(\w+\s+)?\.orig\b/im.test(lc3)) {
    return 'lc3';
  }
  const bare = code(text);
  if (/\$[a-z0-9]+/i.test(bare) || /\bsyscall\b/.test(bare) || /^\s*\.(text|data|globl|asciiz|word)\b/m.test(bare)) {
    return 'mips';
  }
  if (/^\s*\.main\b/m.test(bare) || /\.print\b/.test(bare) || /-?\d+\[\s*r\d+\s*\]/.test(bare) || /@/.test(text)) {
    return 'simplerisc';
  }
  return undefined;
}

interface LineState {
  /** The mnemonic (or directive) of this line is still to come. */
  expectOp: boolean;
  /** Inside a SimpleRISC block comment. */
  inComment: boolean;
}

interface DialectRules {
  lineComment: RegExp;
  blockComments: boolean;
  register: RegExp;
  number: RegExp;
}

const RULES: Record<Isa, DialectRules> = {
  lc3: {
    lineComment: /^;/,
    blockComments: false,
    register: /^[rR][0-7]\b/,
    number: /^(#-?\d+|[xX]-?[0-9a-fA-F]+\b|[bB][01]+\b|-?\d+\b)/,
  },
  mips: {
    lineComment: /^#/,
    blockComments: false,
    register: /^\$[a-zA-Z0-9]+/,
    number: /^(-?0[xX][0-9a-fA-F]+|-?\d+(\.\d+)?([eE][-+]?\d+)?)\b/,
  },
  simplerisc: {
    lineComment: /^(@|\/\/)/,
    blockComments: true,
    register: /^(r1[0-5]|r[0-9]|sp|ra)\b/,
    number: /^(-?0[xX][0-9a-fA-F]+|-?\d+)\b/,
  },
};

function highlighter(isa: Isa) {
  const rules = RULES[isa];
  return StreamLanguage.define<LineState>({
    name: isa,
    startState: () => ({ expectOp: true, inComment: false }),
    copyState: (s) => ({ ...s }),
    token(stream: StringStream, state: LineState): string | null {
      if (stream.sol()) {
        state.expectOp = true;
      }
      if (state.inComment) {
        if (stream.skipTo('*/')) {
          stream.pos += 2;
          state.inComment = false;
        } else {
          stream.skipToEnd();
        }
        return 'comment';
      }
      if (stream.eatSpace()) {
        return null;
      }
      if (stream.match(rules.lineComment)) {
        stream.skipToEnd();
        return 'comment';
      }
      if (rules.blockComments && stream.match('/*')) {
        state.inComment = true;
        return 'comment';
      }
      if (stream.match(/^"(?:[^"\\]|\\.)*"?/) || stream.match(/^'(?:[^'\\]|\\.)*'?/)) {
        return 'string';
      }
      if (stream.match(rules.register)) {
        return 'atom';
      }
      // A label: a name with a colon, or (LC-3) the first word of a line that is no mnemonic.
      const label = stream.match(/^\.?[A-Za-z_][\w.]*\s*:/);
      if (label) {
        return 'labelName';
      }
      if (stream.match(/^\.[A-Za-z_]\w*/)) {
        state.expectOp = false;
        return 'meta';
      }
      if (stream.match(rules.number)) {
        return 'number';
      }
      const word = stream.match(/^[A-Za-z_][\w.]*/) as RegExpMatchArray | null;
      if (word) {
        if (state.expectOp) {
          // LC-3 labels need no colon: a first word that is no mnemonic is a label, and the
          // mnemonic may follow it.
          if (isa === 'lc3' && !LC3_OPS.test(word[0])) {
            return 'labelName';
          }
          state.expectOp = false;
          return 'keyword';
        }
        return 'variableName';
      }
      stream.next();
      return null;
    },
    languageData: { commentTokens: { line: isa === 'lc3' ? ';' : isa === 'mips' ? '#' : '@' } },
  });
}

/** LC-3's mnemonics and trap aliases: a first word that is none of them is a label. */
const LC3_OPS =
  /^(ADD|AND|NOT|BRn?z?p?|JMP|JSRR?|LDI?|LDR|LEA|STI?|STR|TRAP|RET|RTI|HALT|GETC|OUT|PUTS|PUTSP|IN|NOP)$/i;

const languages: Partial<Record<Isa, StreamLanguage<LineState>>> = {};

/** The highlighter of `isa`. */
export function language(isa: Isa): StreamLanguage<LineState> {
  return (languages[isa] ??= highlighter(isa));
}

export const highlightStyle = syntaxHighlighting(
  HighlightStyle.define([
    { tag: tags.comment, color: '#6a737d', fontStyle: 'italic' },
    { tag: tags.keyword, color: '#005cc5', fontWeight: 'bold' },
    { tag: tags.meta, color: '#6f42c1' },
    { tag: tags.labelName, color: '#b31d28' },
    { tag: tags.atom, color: '#22863a' },
    { tag: tags.number, color: '#e36209' },
    { tag: tags.string, color: '#032f62' },
  ]),
);
