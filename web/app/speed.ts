// The speed control: MARS's run speed slider as a rate. Its steps go from one instruction a
// second to 50 M in 1-2-5 steps, then "unlimited" (the default, as asmdbg runs without
// `--speed`); the chosen rate is the DAP launch's `speed`. And the display's status line,
// which says what the terminal's says: the picture's size, the pace, and keys that wait.

/** The slider's steps in instructions a second, slowest first; `undefined`: unlimited. */
export const SPEEDS: (number | undefined)[] = [
  ...[1, 10, 100, 1e3, 1e4, 1e5, 1e6].flatMap((decade) => [decade, 2 * decade, 5 * decade]),
  1e7,
  2e7,
  5e7,
  undefined,
];

/** A pace as people read it, as asmdbg's status line says it: `2 M`, `500 k`, `3000`. */
export function describeSpeed(perSecond: number): string {
  const short = (value: number, unit: string) => `${+value.toFixed(1)} ${unit}`;
  if (perSecond >= 1e6) {
    return short(perSecond / 1e6, 'M');
  }
  if (perSecond >= 1e4) {
    return short(perSecond / 1e3, 'k');
  }
  return String(perSecond);
}

/** The slider's value as words (its aria-valuetext and the text beside it). */
export function speedText(perSecond: number | undefined): string {
  if (perSecond === undefined) {
    return 'unlimited';
  }
  return `${describeSpeed(perSecond)} instruction${perSecond === 1 ? '' : 's'} a second`;
}

/**
 * Reads a speed as the launch's `speed` takes it (`2M`, `1.5M`, `500k`, `30000`), or
 * undefined when it is not one (the session then says why).
 */
export function parseSpeed(text: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d*)?|\.\d+)\s*([kKmM]?)\s*$/.exec(text);
  if (!m) {
    return undefined;
  }
  const scale = { '': 1, k: 1e3, m: 1e6 }[m[2].toLowerCase() as '' | 'k' | 'm'];
  const perSecond = Math.round(parseFloat(m[1]) * scale);
  return perSecond >= 1 ? perSecond : undefined;
}

/** The slider's step nearest `perSecond` (on a logarithmic scale); unlimited for none. */
export function nearestStep(perSecond: number | undefined): number {
  if (perSecond === undefined) {
    return SPEEDS.length - 1;
  }
  let best = 0;
  for (const [i, step] of SPEEDS.entries()) {
    if (step !== undefined && Math.abs(Math.log(step / perSecond)) < Math.abs(Math.log(SPEEDS[best]! / perSecond))) {
      best = i;
    }
  }
  return best;
}

/** The slider and the words beside it; `changed` hears the user move it. */
export class SpeedControl {
  constructor(
    private slider: HTMLInputElement,
    private text: HTMLElement,
    changed: (perSecond: number | undefined) => void,
  ) {
    slider.max = String(SPEEDS.length - 1);
    slider.oninput = () => {
      this.show();
      changed(this.value);
    };
    this.set(undefined);
  }

  /** Instructions a second; undefined: unlimited. */
  get value(): number | undefined {
    return SPEEDS[+this.slider.value];
  }

  /** Puts the slider at `perSecond` (the step nearest it; undefined: unlimited). */
  set(perSecond: number | undefined) {
    this.slider.value = String(nearestStep(perSecond));
    this.show();
  }

  private show() {
    const words = speedText(this.value);
    this.slider.setAttribute('aria-valuetext', words);
    this.text.textContent = words;
  }
}

/** A frame's size as the display event gives it. */
export interface FrameSize {
  width: number;
  height: number;
  unitWidth: number;
  unitHeight: number;
}

/** What keys typed in the past do, as the IDE's display panel says it. */
export function heldText(held: number): string {
  const keys = held === 1 ? 'A key typed in the past waits' : `${held} keys typed in the past wait`;
  return `${keys} for the end of the recording, where the program gets them one by one.`;
}

/** The display's status line: its size and scale, the pace, and keys that wait. */
export function displayStatus(frame: FrameSize, perSecond: number | undefined, held: number): string {
  const scale = frame.unitWidth === frame.unitHeight ? `×${frame.unitWidth}` : `${frame.unitWidth}×${frame.unitHeight} pixels a unit`;
  const pace = perSecond === undefined ? 'full speed' : speedText(perSecond);
  const parts = [`${frame.width}×${frame.height} display, ${scale}`, pace, 'click it and type to press keys'];
  const line = parts.join(' · ');
  return held > 0 ? `${line}. ${heldText(held)}` : line;
}
