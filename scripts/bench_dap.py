#!/usr/bin/env python3
"""Benchmarks of the DAP adapter (numbers, not pass/fail), printed for issue notes: what an
IDE waits for, measured over `asmdbg dap`'s pipes on an LC-3 nested loop.

- request round trip: `threads`, the cheapest request (the framing, dispatch and reply);
- a step as VS Code does it: `next` by instruction, the `stopped` event, then `stackTrace`,
  `scopes` and the Registers `variables`;
- a breakpoint stop: `continue` to a line breakpoint in the loop and the same three requests;
- a step back by instruction (time travel) and the same three requests;
- `disassemble` of 500 instructions.

Each is the median of its repetitions, in microseconds. Usage: scripts/bench_dap.py BIN
"""

import json
import os
import statistics
import subprocess
import sys
import time

ASMDBG = sys.argv[1] if len(sys.argv) > 1 else "target/release/asmdbg"

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The LC-3 benchmark probe (a nested loop of 60 M instructions), and the line of its
# `STR R4, R5, #0`, inside the inner loop.
PROGRAM = os.path.join(ROOT, "tests/programs/lc3/probe_bench.asm")
LOOP_LINE = 10


class Dap:
    def __init__(self):
        self.proc = subprocess.Popen(
            [ASMDBG, "dap"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL)
        self.seq = 0
        self.events = []

    def send(self, command, arguments):
        self.seq += 1
        body = json.dumps({"seq": self.seq, "type": "request", "command": command,
                           "arguments": arguments}).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
        self.proc.stdin.flush()
        return self.seq

    def message(self):
        length = None
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise SystemExit("bench_dap: the adapter closed its output")
            line = line.strip()
            if not line:
                break
            if line.startswith(b"Content-Length:"):
                length = int(line.split(b":")[1])
        return json.loads(self.proc.stdout.read(length))

    def call(self, command, arguments=None):
        seq = self.send(command, arguments or {})
        while True:
            m = self.message()
            if m["type"] == "response" and m["request_seq"] == seq:
                if not m["success"]:
                    raise SystemExit(f"bench_dap: {command} failed: {m.get('message')}")
                return m.get("body", {})
            self.events.append(m)

    def event(self, name):
        for i, e in enumerate(self.events):
            if e.get("event") == name:
                return self.events.pop(i)
        while True:
            m = self.message()
            if m["type"] == "event" and m["event"] == name:
                return m
            if m["type"] == "event":
                self.events.append(m)

    def look(self):
        """What VS Code asks after every stop."""
        frames = self.call("stackTrace", {"threadId": 1, "startFrame": 0, "levels": 20})
        assert frames["stackFrames"], frames
        self.call("scopes", {"frameId": frames["stackFrames"][0]["id"]})
        self.call("variables", {"variablesReference": 1})

    def close(self):
        try:
            self.call("disconnect", {})
        finally:
            self.proc.wait(timeout=10)


def timed(count, action):
    times = []
    for _ in range(count):
        start = time.perf_counter()
        action()
        times.append((time.perf_counter() - start) * 1e6)
    return statistics.median(times)


def main():
    path = PROGRAM
    dap = Dap()
    dap.call("initialize", {"adapterID": "asmdbg", "linesStartAt1": True})
    dap.call("launch", {"program": path, "isa": "lc3", "stopOnEntry": True})
    dap.event("initialized")
    dap.call("configurationDone")
    dap.event("stopped")

    results = []
    results.append(("request round trip (threads)", timed(2000, lambda: dap.call("threads"))))

    def step():
        dap.call("next", {"threadId": 1, "granularity": "instruction"})
        dap.event("stopped")
        dap.look()
    results.append(("step by instruction + stackTrace/scopes/variables", timed(300, step)))

    source = {"path": path}
    dap.call("setBreakpoints", {"source": source, "breakpoints": [{"line": LOOP_LINE}]})

    def stop():
        dap.call("continue", {"threadId": 1})
        dap.event("stopped")
        dap.look()
    results.append(("continue to a breakpoint + stackTrace/scopes/variables", timed(300, stop)))
    dap.call("setBreakpoints", {"source": source, "breakpoints": []})

    def back():
        dap.call("stepBack", {"threadId": 1, "granularity": "instruction"})
        dap.event("stopped")
        dap.look()
    results.append(("step back by instruction + stackTrace/scopes/variables", timed(300, back)))

    pc = dap.call("stackTrace", {"threadId": 1})["stackFrames"][0]["instructionPointerReference"]
    results.append(("disassemble 500 instructions", timed(50, lambda: dap.call(
        "disassemble", {"memoryReference": pc, "instructionOffset": -250,
                        "instructionCount": 500}))))
    dap.close()
    print("== DAP adapter (median microseconds; LC-3 loop over pipes)")
    for name, micros in results:
        print(f"  {name:58s} {micros:9.1f}")


if __name__ == "__main__":
    main()
