// The debugger's panes, drawn from DAP answers: registers (changed ones highlighted), the
// call stack, watches, the data labels and a memory dump, the display, the timeline.

export interface Variable {
  name: string;
  value: string;
  memoryReference?: string;
  evaluateName?: string;
}

export interface StackFrame {
  id: number;
  name: string;
  line: number;
  source?: { name?: string; path?: string };
  instructionPointerReference?: string;
}

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

function cell(tag: 'td' | 'th', text: string): HTMLElement {
  const element = document.createElement(tag);
  element.textContent = text;
  return element;
}

/** The registers; a register whose value differs from `before` is marked changed. */
export function showRegisters(registers: Variable[], before: Map<string, string>) {
  const body = $('registers').querySelector('tbody')!;
  body.replaceChildren(
    ...registers.map((r) => {
      const row = document.createElement('tr');
      const changed = before.size > 0 && before.has(r.name) && before.get(r.name) !== r.value;
      if (changed) {
        row.className = 'changed';
        row.title = `was ${before.get(r.name)}`;
      }
      row.append(cell('th', r.name), cell('td', r.value));
      return row;
    }),
  );
}

/** The call stack; clicking a frame shows its line. */
export function showStack(frames: StackFrame[], reveal: (frame: StackFrame) => void) {
  $('stack').replaceChildren(
    ...frames.map((frame) => {
      const item = document.createElement('li');
      const where = frame.source?.name ? `${frame.source.name}:${frame.line}` : frame.instructionPointerReference ?? '';
      item.textContent = `${frame.name}  ${where}`;
      item.tabIndex = 0;
      item.onclick = () => reveal(frame);
      item.onkeydown = (e) => {
        if (e.key === 'Enter') {
          reveal(frame);
        }
      };
      return item;
    }),
  );
}

/** The data labels and their values. */
export function showData(data: Variable[]) {
  $('data')
    .querySelector('tbody')!
    .replaceChildren(
      ...data.map((v) => {
        const row = document.createElement('tr');
        row.append(cell('th', v.name), cell('td', v.memoryReference ?? ''), cell('td', v.value));
        return row;
      }),
    );
  const select = $<HTMLSelectElement>('watch-label');
  const chosen = select.value;
  select.replaceChildren(
    ...data.map((v) => {
      const option = document.createElement('option');
      option.value = option.textContent = v.name;
      return option;
    }),
  );
  if (data.some((v) => v.name === chosen)) {
    select.value = chosen;
  }
}

/** The watched labels, with their values now and a button that removes each. */
export function showWatches(watches: string[], data: Variable[], remove: (label: string) => void) {
  $('watches')
    .querySelector('tbody')!
    .replaceChildren(
      ...watches.map((label) => {
        const row = document.createElement('tr');
        const value = data.find((v) => v.name === label)?.value ?? '';
        const button = document.createElement('button');
        button.type = 'button';
        button.textContent = 'Remove';
        button.setAttribute('aria-label', `Remove the watch on ${label}`);
        button.onclick = () => remove(label);
        const action = document.createElement('td');
        action.append(button);
        row.append(cell('th', label), cell('td', value), action);
        return row;
      }),
    );
}

/** Bytes as a hex dump from `start`, 16 a line, each line's first label named. */
export function showMemory(start: number, bytes: Uint8Array, labels: Map<number, string>, format: (a: number) => string) {
  const lines: string[] = [];
  for (let i = 0; i < bytes.length; i += 16) {
    const row = Array.from(bytes.subarray(i, i + 16), (b) => b.toString(16).padStart(2, '0')).join(' ');
    const ascii = Array.from(bytes.subarray(i, i + 16), (b) => (b >= 32 && b < 127 ? String.fromCharCode(b) : '.')).join('');
    const names: string[] = [];
    for (let a = start + i; a < start + i + 16; a++) {
      const label = labels.get(a);
      if (label) {
        names.push(label);
      }
    }
    lines.push(`${format(start + i)}  ${row.padEnd(47)}  ${ascii}${names.length ? '  ' + names.join(' ') : ''}`);
  }
  $('memory').textContent = lines.join('\n');
}

/** Draws a frame of the program's display: each unit a block of its unit size. */
export function showFrame(frame: { width: number; height: number; unitWidth: number; unitHeight: number; pixels: string }) {
  const canvas = $<HTMLCanvasElement>('display');
  $('display-pane').hidden = false;
  const width = frame.width * frame.unitWidth;
  const height = frame.height * frame.unitHeight;
  if (canvas.width !== width || canvas.height !== height) {
    canvas.width = width;
    canvas.height = height;
  }
  const rgb = Uint8Array.from(atob(frame.pixels), (c) => c.charCodeAt(0));
  const image = new ImageData(width, height);
  const out = image.data;
  for (let y = 0; y < height; y++) {
    const unitRow = Math.floor(y / frame.unitHeight) * frame.width;
    for (let x = 0; x < width; x++) {
      const unit = (unitRow + Math.floor(x / frame.unitWidth)) * 3;
      const at = (y * width + x) * 4;
      out[at] = rgb[unit];
      out[at + 1] = rgb[unit + 1];
      out[at + 2] = rgb[unit + 2];
      out[at + 3] = 255;
    }
  }
  canvas.getContext('2d')!.putImageData(image, 0, 0);
}

/** `monitor history`'s answer: the recorded span and where the machine is in it. */
export interface History {
  start: number;
  frontier: number;
  now: number;
}

export function parseHistory(text: string): History | undefined {
  const m = /instructions (\d+) to (\d+) .*now at (\d+)/.exec(text);
  return m ? { start: +m[1], frontier: +m[2], now: +m[3] } : undefined;
}

export function showTimeline(history: History | undefined, enabled: boolean) {
  const slider = $<HTMLInputElement>('timeline');
  const text = $('timeline-text');
  if (!history) {
    slider.disabled = true;
    text.textContent = 'No recorded run yet';
    return;
  }
  slider.min = String(history.start);
  slider.max = String(history.frontier);
  slider.value = String(history.now);
  slider.disabled = !enabled || history.frontier === history.start;
  slider.setAttribute('aria-valuetext', `instruction ${history.now} of ${history.frontier}`);
  text.textContent = `instruction ${history.now.toLocaleString('en')} of ${history.frontier.toLocaleString('en')} recorded`;
}
