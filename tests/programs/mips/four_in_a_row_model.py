#!/usr/bin/env python3
"""The rules of Four in a Row (the course assignment's, as the header of
programs/mips/four_in_a_row.asm states them) written a second time, in Python, to derive the
expected console transcripts of the scripted games in this folder. It shares no code with the
assembly program.

    python3 four_in_a_row_model.py NAME.in > NAME.out     (one game)
    python3 four_in_a_row_model.py --all                  (every *.in here -> *.out)
"""
import sys
from pathlib import Path

ROWS, COLS = 6, 7


class GameOver(Exception):
    pass


class Game:
    def __init__(self, lines):
        self.lines = list(lines)
        self.out = []
        self.grid = [[" "] * COLS for _ in range(ROWS)]
        self.names = ["", ""]
        self.turn = 0
        self.violations = [0, 0]
        self.undos = [3, 3]
        self.removes = [1, 1]
        self.blocks = [1, 1]
        self.first = [True, True]
        self.blocked = False
        self.last = None  # ("drop", r, c) or ("remove", r, c, piece)

    # console
    def say(self, text):
        self.out.append(text)

    def line(self):
        if not self.lines:
            raise EOFError
        return self.lines.pop(0)

    def read_int(self):
        return int(self.line().strip())

    def player(self, p):
        return f"{self.names[p]} ({'XO'[p]})"

    def board(self):
        self.say("\n  1   2   3   4   5   6   7\n")
        sep = "+---" * COLS + "+\n"
        self.say(sep)
        for r in range(ROWS):
            self.say("".join(f"| {self.grid[r][c]} " for c in range(COLS)) + "|\n")
            self.say(sep)

    def status(self):
        p = self.turn
        self.say(
            f"{self.player(p)} to move - violations: {self.violations[p]}/3, undos left: "
            f"{self.undos[p]}, removes left: {self.removes[p]}, blocks left: {self.blocks[p]}\n"
        )
        if self.first[p]:
            self.say("First move: drop a piece in the centre column (4).\n")

    def win(self, p):
        self.say(f"{self.player(p)} wins!\n")
        raise GameOver

    def violation(self, message):
        p = self.turn
        self.say(message)
        self.violations[p] += 1
        if self.violations[p] > 3:
            self.say(f"{self.player(p)} has violated the rules more than 3 times.\n")
            self.win(1 - p)
        self.say(f"Violations of {self.player(p)}: {self.violations[p]}/3\n")

    def yes_no(self, question):
        while True:
            self.say(question)
            v = self.read_int()
            if v in (0, 1):
                return v

    def four_through(self, r, c):
        piece = self.grid[r][c]
        for dr, dc in [(0, 1), (1, 0), (-1, 1), (-1, -1)]:
            count = 1
            for sign in (1, -1):
                rr, cc = r + sign * dr, c + sign * dc
                while 0 <= rr < ROWS and 0 <= cc < COLS and self.grid[rr][cc] == piece:
                    count += 1
                    rr, cc = rr + sign * dr, cc + sign * dc
            if count >= 4:
                return True
        return False

    # one turn; returns normally when the turn is over (the caller switches players)
    def move(self):
        """A move up to and including its win/draw check. Returns True when it is complete,
        False when a violation restarts the turn."""
        p = self.turn
        while True:
            self.say("1 = drop a piece, 2 = remove an opponent's piece: ")
            choice = self.read_int()
            if choice in (1, 2):
                break
        if choice == 1:
            self.say("Column (1-7): ")
            col = self.read_int()
            if not 1 <= col <= 7:
                self.violation("Column out of range. Violation!\n")
                return False
            if self.first[p] and col != 4:
                self.violation("Your first move must be in the centre column. Violation!\n")
                return False
            c = col - 1
            rows = [r for r in range(ROWS) if self.grid[r][c] == " "]
            if not rows:
                self.violation("Column is full. Violation!\n")
                return False
            r = rows[-1]
            self.grid[r][c] = "XO"[p]
            self.last = ("drop", r, c)
            if self.four_through(r, c):
                self.board()
                self.win(p)
            if all(self.grid[r2][c2] != " " for r2 in range(ROWS) for c2 in range(COLS)):
                self.board()
                self.say("The board is full: it's a draw!\n")
                raise GameOver
            return True
        # remove
        if self.first[p]:
            self.violation("Your first move must be a drop in the centre column. Violation!\n")
            return False
        if self.removes[p] == 0:
            self.violation("You have already used your remove. Violation!\n")
            return False
        while True:
            self.say("Row (1-6): ")
            row = self.read_int()
            self.say("Column (1-7): ")
            col = self.read_int()
            if 1 <= row <= 6 and 1 <= col <= 7 and self.grid[row - 1][col - 1] == "XO"[1 - p]:
                break
            self.violation("That cell does not hold a piece of your opponent. Violation!\n")
        r, c = row - 1, col - 1
        piece = self.grid[r][c]
        for rr in range(r, 0, -1):
            self.grid[rr][c] = self.grid[rr - 1][c]
        self.grid[0][c] = " "
        self.removes[p] = 0
        self.last = ("remove", r, c, piece)
        rr = r
        while rr >= 0 and self.grid[rr][c] != " ":
            if self.four_through(rr, c):
                self.board()
                self.win("XO".index(self.grid[rr][c]))
            rr -= 1
        return True

    def undo(self):
        p = self.turn
        self.undos[p] -= 1
        if self.last[0] == "drop":
            _, r, c = self.last
            self.grid[r][c] = " "
        else:
            _, r, c, piece = self.last
            for rr in range(0, r):
                self.grid[rr][c] = self.grid[rr + 1][c]
            self.grid[r][c] = piece
            self.removes[p] = 1
        self.say("Move undone.\n")

    def play(self):
        self.say("===== FOUR IN A ROW =====\n")
        for p in (0, 1):
            self.say(f"Player {p + 1} ({'XO'[p]}), enter your name: ")
            self.names[p] = self.line()[:31]
        while True:
            if self.blocked:
                self.blocked = False
                self.say(f"{self.player(self.turn)} is blocked and skips this turn.\n")
                self.turn = 1 - self.turn
            self.board()
            while True:
                self.status()
                while not self.move():
                    self.status()
                p = self.turn
                if self.first[p]:
                    self.first[p] = False
                    break
                if not self.yes_no("Undo this move? (1 = yes, 0 = no): "):
                    break
                if self.undos[p] == 0:
                    self.violation("You have no undos left. Violation!\n")
                    break
                self.undo()
                self.board()
            if self.yes_no("Block your opponent's next move? (1 = yes, 0 = no): "):
                if self.blocks[self.turn] == 0:
                    self.violation("You have already used your block. Violation!\n")
                else:
                    self.blocks[self.turn] = 0
                    self.blocked = True
            self.turn = 1 - self.turn


def transcript(text):
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    game = Game(lines)
    try:
        game.play()
    except GameOver:
        pass
    except EOFError:
        raise SystemExit("the input ends before the game does")
    if game.lines:
        raise SystemExit(f"input left over after the game: {game.lines}")
    return "".join(game.out)


if __name__ == "__main__":
    here = Path(__file__).resolve().parent
    if sys.argv[1:] == ["--all"]:
        for inp in sorted(here.glob("*.in")):
            inp.with_suffix(".out").write_text(transcript(inp.read_text()))
            print(inp.with_suffix(".out").name)
    else:
        sys.stdout.write(transcript(Path(sys.argv[1]).read_text()))
