// The one-click examples: the five games of programs/ and the graphics examples, bundled
// into the page with the files they come with (sample input, timed keys).

import nim from '../../programs/lc3/nim.asm';
import nimSample from '../../tests/programs/lc3/nim-sample.in';
import dots from '../../programs/lc3/dots.asm';
import dotsGame from '../../tests/programs/lc3/dots-game.in';
import connect4 from '../../programs/lc3/connect4.asm';
import connect4Sample from '../../tests/programs/lc3/connect4-sample.in';
import fourInARow from '../../programs/mips/four_in_a_row.asm';
import horizontalWin from '../../tests/programs/mips/01_horizontal_win.in';
import tictactoe from '../../programs/simplerisc/tictactoe.asm';
import snake from '../../programs/mips/snake.asm';
import snakeKeys from '../../programs/mips/snake.keys';
import meteors from '../../programs/mips/meteors.asm';
import meteorsKeys from '../../programs/mips/meteors.keys';
import sketch from '../../programs/lc3/sketch.asm';
import sketchKeys from '../../programs/lc3/sketch.keys';
import breakout from '../../programs/lc3/breakout.asm';
import breakoutKeys from '../../programs/lc3/breakout.keys';
import isr from '../../programs/lc3/interrupts/isr.asm';
import userProgram from '../../programs/lc3/interrupts/user_program.asm';
import interruptKeys from '../../programs/lc3/interrupts/keys.txt';

export interface Example {
  title: string;
  /** The files, in order (a program of several files runs them in this order). */
  files: Record<string, string>;
  /** The launch's own attributes (asmdbg debug's options in camelCase). */
  options?: Record<string, unknown>;
  /** A file of the example to use as the console's input, chosen at once. */
  input?: string;
  /** The speed control's setting (instructions a second) for a game timed by the machine's
   * pace; unlimited when absent. */
  speed?: number;
}

export const EXAMPLES: Example[] = [
  { title: 'Nim (LC-3)', files: { 'nim.asm': nim, 'nim-sample.in': nimSample } },
  { title: 'Dots and Boxes (LC-3)', files: { 'dots.asm': dots, 'dots-game.in': dotsGame } },
  { title: 'Connect-4 (LC-3)', files: { 'connect4.asm': connect4, 'connect4-sample.in': connect4Sample } },
  {
    title: 'Four in a row (MIPS)',
    files: { 'four_in_a_row.asm': fourInARow, 'horizontal_win.in': horizontalWin },
  },
  { title: 'Tic-tac-toe verifier (SimpleRISC)', files: { 'tictactoe.asm': tictactoe }, options: { noMul: true } },
  { title: 'Snake (MIPS, Bitmap Display)', files: { 'snake.asm': snake, 'snake.keys': snakeKeys } },
  { title: 'Etch-a-sketch (LC-3, PennSim video)', files: { 'sketch.asm': sketch, 'sketch.keys': sketchKeys }, options: { display: true } },
  // The two real-time games: Breakout checks the keyboard once a frame, Meteors counts
  // instructions for its timing (MARS's pace); both play at a speed a person can follow.
  {
    title: 'Breakout (LC-3, PennSim video, real time)',
    files: { 'breakout.asm': breakout, 'breakout.keys': breakoutKeys },
    options: { display: true },
    speed: 1e5,
  },
  { title: 'Meteors (MIPS, Bitmap Display, MARS pace)', files: { 'meteors.asm': meteors, 'meteors.keys': meteorsKeys }, speed: 2e6 },
  {
    title: 'Keyboard interrupts (LC-3, two files)',
    files: { 'isr.asm': isr, 'user_program.asm': userProgram, 'keys.txt': interruptKeys },
  },
];
