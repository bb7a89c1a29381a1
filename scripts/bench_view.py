#!/usr/bin/env python3
"""The terminal view's cost (scripts/bench): runs `asmdbg run ARGS --stats` with its stdout on a
pty of COLSxROWS cells that says it has 24-bit colour, reads everything the terminal gets, and
prints the run's --stats line with the bytes the terminal received per second of the run.

Usage: bench_view.py COLS ROWS ASMDBG ARGS...
"""
import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios
import time


def main():
    cols, rows, argv = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    env = dict(os.environ, TERM="xterm-256color", COLORTERM="truecolor")
    start = time.monotonic()
    child = subprocess.Popen(
        argv + ["--stats"], stdin=slave, stdout=slave, stderr=subprocess.PIPE, env=env
    )
    os.close(slave)
    received = 0
    while True:
        try:
            chunk = os.read(master, 1 << 16)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        received += len(chunk)
    elapsed = time.monotonic() - start
    stderr = child.stderr.read().decode(errors="replace")
    child.wait()
    stats = [line for line in stderr.splitlines() if line.startswith("stats:")]
    if not stats:
        sys.exit(f"bench_view.py: no --stats line from {' '.join(argv)}:\n{stderr}")
    print(f"{stats[0]}; terminal: {received} bytes in {elapsed:.2f} s "
          f"({received / elapsed / 1000:.1f} kB/s)")


if __name__ == "__main__":
    main()
