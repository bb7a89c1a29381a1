// The editor: CodeMirror 6 with the dialect's highlighting, a gutter of breakpoints (one
// button per line, named for screen readers), the line the program stopped on, and the
// assembler's errors shown inline at their line and column.

import { EditorState, StateEffect, StateField, RangeSet, Compartment, type Extension } from '@codemirror/state';
import {
  EditorView,
  Decoration,
  GutterMarker,
  gutter,
  keymap,
  lineNumbers,
  highlightActiveLine,
  highlightActiveLineGutter,
  drawSelection,
  type DecorationSet,
} from '@codemirror/view';
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { searchKeymap, highlightSelectionMatches } from '@codemirror/search';
import { lintGutter, setDiagnostics, type Diagnostic } from '@codemirror/lint';
import { highlightStyle, language, type Isa } from './dialects';

/** Toggles the breakpoint at a position (a line's start). */
const toggleBreakpoint = StateEffect.define<number>();
/** Replaces every breakpoint (lines, from 1). */
const setBreakpointLines = StateEffect.define<number[]>();
/** The line the program stopped on (from 1), or 0 for none. */
export const setStoppedLine = StateEffect.define<number>();

class BreakpointMarker extends GutterMarker {
  constructor(readonly verified: boolean) {
    super();
  }
  eq(other: BreakpointMarker) {
    return other.verified === this.verified;
  }
  toDOM() {
    const dot = document.createElement('span');
    dot.className = this.verified ? 'bp-dot' : 'bp-dot bp-unverified';
    dot.textContent = '●';
    return dot;
  }
}

const marker = new BreakpointMarker(true);

const breakpointField = StateField.define<RangeSet<GutterMarker>>({
  create: () => RangeSet.empty,
  update(set, tr) {
    set = set.map(tr.changes);
    for (const effect of tr.effects) {
      if (effect.is(toggleBreakpoint)) {
        let present = false;
        set.between(effect.value, effect.value, () => {
          present = true;
        });
        set = present
          ? set.update({ filter: (from) => from !== effect.value })
          : set.update({ add: [marker.range(effect.value)] });
      } else if (effect.is(setBreakpointLines)) {
        const doc = tr.state.doc;
        const ranges = effect.value
          .filter((line) => line >= 1 && line <= doc.lines)
          .map((line) => marker.range(doc.line(line).from));
        set = RangeSet.of(ranges, true);
      }
    }
    return set;
  },
});

/** The breakpoints' lines (from 1) of an editor state. */
export function breakpointLines(state: EditorState): number[] {
  const lines: number[] = [];
  const set = state.field(breakpointField, false);
  if (!set) {
    return lines;
  }
  const cursor = set.iter();
  while (cursor.value) {
    lines.push(state.doc.lineAt(cursor.from).number);
    cursor.next();
  }
  return [...new Set(lines)];
}

/** A gutter cell: the breakpoint's dot, or an empty button that sets one. */
class LineButton extends GutterMarker {
  constructor(readonly line: number, readonly set: boolean) {
    super();
  }
  eq(other: LineButton) {
    return other.line === this.line && other.set === this.set;
  }
  toDOM() {
    const button = document.createElement('span');
    button.className = this.set ? 'bp-dot' : 'bp-empty';
    button.textContent = this.set ? '●' : '';
    button.dataset.breakpointLine = String(this.line);
    button.setAttribute('role', 'button');
    button.setAttribute('aria-pressed', String(this.set));
    button.setAttribute('aria-label', `Breakpoint at line ${this.line}`);
    return button;
  }
}

const stoppedLineField = StateField.define<DecorationSet>({
  create: () => Decoration.none,
  update(deco, tr) {
    deco = deco.map(tr.changes);
    for (const effect of tr.effects) {
      if (effect.is(setStoppedLine)) {
        const line = effect.value;
        deco =
          line >= 1 && line <= tr.state.doc.lines
            ? Decoration.set([Decoration.line({ class: 'cm-stopped-line' }).range(tr.state.doc.line(line).from)])
            : Decoration.none;
      }
    }
    return deco;
  },
  provide: (field) => EditorView.decorations.from(field),
});

/** Called after the breakpoints of an editor change. */
export type BreakpointsChanged = (lines: number[]) => void;

function breakpointGutter(changed: () => void): Extension {
  return [
    breakpointField,
    gutter({
      class: 'cm-breakpoint-gutter',
      lineMarker(view, line) {
        const number = view.state.doc.lineAt(line.from).number;
        let set = false;
        view.state.field(breakpointField).between(line.from, line.from, () => {
          set = true;
        });
        return new LineButton(number, set);
      },
      lineMarkerChange: (update) => update.transactions.some((tr) => tr.effects.some((e) => e.is(toggleBreakpoint) || e.is(setBreakpointLines))),
      initialSpacer: () => new LineButton(0, true),
      domEventHandlers: {
        mousedown(view, line) {
          view.dispatch({ effects: toggleBreakpoint.of(line.from) });
          changed();
          return true;
        },
      },
    }),
  ];
}

export const languageSlot = new Compartment();

/** A new editor state for a file of `isa`. */
export function newState(text: string, isa: Isa | undefined, changed: () => void, onEdit: () => void): EditorState {
  return EditorState.create({
    doc: text,
    extensions: [
      breakpointGutter(changed),
      lineNumbers(),
      lintGutter(),
      highlightActiveLineGutter(),
      highlightActiveLine(),
      drawSelection(),
      history(),
      highlightSelectionMatches(),
      stoppedLineField,
      languageSlot.of(isa ? language(isa) : []),
      highlightStyle,
      keymap.of([
        {
          // F9, as in VS Code: the gutter is hidden from screen readers.
          key: 'F9',
          run(view) {
            view.dispatch({ effects: toggleBreakpoint.of(view.state.doc.lineAt(view.state.selection.main.head).from) });
            changed();
            return true;
          },
        },
        ...defaultKeymap,
        ...historyKeymap,
        ...searchKeymap,
        indentWithTab,
      ]),
      EditorView.updateListener.of((update) => {
        if (update.docChanged) {
          onEdit();
        }
      }),
      EditorView.contentAttributes.of({ 'aria-label': 'Assembly source' }),
    ],
  });
}

/** `state` with its dialect set to `isa`. */
export function withIsa(state: EditorState, isa: Isa | undefined): EditorState {
  return state.update({ effects: languageSlot.reconfigure(isa ? language(isa) : []) }).state;
}

/** `state` with these breakpoint lines. */
export function withBreakpoints(state: EditorState, lines: number[]): EditorState {
  return state.update({ effects: setBreakpointLines.of(lines) }).state;
}

/** An assembler message at a line and column (from 1). */
export interface SourceError {
  file: string;
  line: number;
  column: number;
  severity: 'error' | 'warning';
  message: string;
}

/** `state` with these errors shown at their places. */
export function withErrors(state: EditorState, errors: SourceError[]): EditorState {
  const doc = state.doc;
  const diagnostics: Diagnostic[] = errors
    .filter((e) => e.line >= 1 && e.line <= doc.lines)
    .map((e) => {
      const line = doc.line(e.line);
      const from = Math.min(line.from + Math.max(0, e.column - 1), line.to);
      // The word at the column (at least one character where the line has one).
      const rest = doc.sliceString(from, line.to);
      const word = /^\S+/.exec(rest)?.[0].length ?? 0;
      const to = Math.min(line.to, from + Math.max(1, word));
      return { from, to: Math.max(to, from), severity: e.severity, message: e.message };
    });
  return state.update(setDiagnostics(state, diagnostics)).state;
}

/** `state` with the program stopped at `line` (0: not in this file). */
export function withStoppedLine(state: EditorState, line: number): EditorState {
  return state.update({ effects: setStoppedLine.of(line) }).state;
}

/**
 * The assembler's messages in a launch error: asmdbg's `file:line:col: error: text` and
 * MARS's `Error in file line N column C: text` (MIPS).
 */
export function parseErrors(text: string, files: string[]): SourceError[] {
  const errors: SourceError[] = [];
  for (const line of text.split('\n')) {
    let m = /^(.+?):(\d+):(\d+): (error|warning): (.*)$/.exec(line);
    if (m) {
      errors.push({ file: m[1], line: +m[2], column: +m[3], severity: m[4] as 'error' | 'warning', message: m[5] });
      continue;
    }
    m = /^(Error|Warning) in (.+?) line (\d+) column (\d+): (.*)$/.exec(line);
    if (m) {
      errors.push({
        file: m[2],
        line: +m[3],
        column: +m[4],
        severity: m[1] === 'Error' ? 'error' : 'warning',
        message: m[5],
      });
    }
  }
  // Names as the page knows them (a message may name a file by a longer path).
  for (const error of errors) {
    const known = files.find((f) => f === error.file || error.file.endsWith('/' + f));
    if (known) {
      error.file = known;
    }
  }
  return errors;
}
