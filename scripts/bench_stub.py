#!/usr/bin/env python3
"""Benchmarks of the gdb stub (numbers, not pass/fail), printed for issue notes:

- raw RSP round trips per second for `vCont;s` (a minimal client, no-ack mode);
- `stepi` per second through gdb-multiarch in a gdb Python loop, against asmdbg and against
  `qemu-mipsel -g` on an equivalent MIPS loop (the side-by-side ratio);
- instruction rate during `continue` with 0 vs 100 breakpoints + 4 watchpoints (monitor stats);
- Ctrl-C-to-stop latency (median and max over many interrupts).

Usage: scripts/bench_stub.py path/to/asmdbg
"""

import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

ASMDBG = sys.argv[1] if len(sys.argv) > 1 else "target/release/asmdbg"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SPIN_MIPS = """\
        .text
main:   li $t0, 0
spin:   addiu $t0, $t0, 1
        xor $t1, $t0, $t2
        addu $t2, $t2, $t1
        j spin
"""


def start_stub(program, *extra):
    proc = subprocess.Popen(
        [ASMDBG, "debug", program, "--gdb", "127.0.0.1:0", "--console", "stdio", *extra],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    port = None
    while port is None:
        line = proc.stderr.readline()
        if not line:
            raise RuntimeError("asmdbg debug exited early")
        m = re.match(r"gdb: listening on 127\.0\.0\.1:(\d+)", line)
        if m:
            port = int(m.group(1))
    proc.stderr.readline()  # console line
    return proc, port


def packet(payload):
    return b"$%s#%02x" % (payload, sum(payload) & 0xFF)


class Rsp:
    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b""
        self.ack = True
        self.call(b"qSupported:multiprocess+;swbreak+;hwbreak+;vContSupported+")
        self.call(b"QStartNoAckMode")
        self.ack = False

    def read_packet(self):
        while True:
            start = self.buf.find(b"$")
            if start >= 0:
                end = self.buf.find(b"#", start)
                if end >= 0 and len(self.buf) >= end + 3:
                    payload = self.buf[start + 1 : end]
                    self.buf = self.buf[end + 3 :]
                    if self.ack:
                        self.sock.sendall(b"+")
                    return payload
            data = self.sock.recv(65536)
            if not data:
                raise RuntimeError("connection closed")
            self.buf += data

    def call(self, payload):
        self.sock.sendall(packet(payload))
        return self.read_packet()


def bench_round_trips(program):
    proc, port = start_stub(program, "--once")
    try:
        rsp = Rsp(port)
        rsp.call(b"?")
        n = 20000
        t = time.perf_counter()
        for _ in range(n):
            reply = rsp.call(b"vCont;s")
            if not reply.startswith((b"S", b"T")):
                raise RuntimeError("unexpected reply %r" % reply)
        dt = time.perf_counter() - t
        print(f"  raw RSP vCont;s round trips: {n / dt:,.0f}/s ({n} in {dt:.2f} s)")
        lat = []
        for _ in range(60):
            rsp.sock.sendall(packet(b"vCont;c"))
            time.sleep(0.01)
            t = time.perf_counter()
            rsp.sock.sendall(b"\x03")
            reply = rsp.read_packet()
            lat.append((time.perf_counter() - t) * 1000)
            if not reply.startswith((b"S02", b"T02")):
                raise RuntimeError("unexpected interrupt reply %r" % reply)
        print(
            f"  Ctrl-C to stop latency: median {statistics.median(lat):.3f} ms, "
            f"max {max(lat):.3f} ms over {len(lat)} interrupts"
        )
        rsp.sock.sendall(packet(b"k"))
    finally:
        proc.kill()
        proc.wait()


def gdb_stepi_rate(target_cmd, n=2000, elf=None):
    script = f"""
set pagination off
set confirm off
{target_cmd}
python
import time
t = time.time()
for _ in range({n}):
    gdb.execute("stepi", to_string=True)
print("STEPI_RATE %.1f" % ({n} / (time.time() - t)))
end
kill
"""
    with tempfile.NamedTemporaryFile("w", suffix=".gdb", delete=False) as f:
        f.write(script)
    args = ["gdb-multiarch", "-nx", "-batch"]
    if elf:
        args.append(elf)
    out = subprocess.run(args + ["-x", f.name], capture_output=True, text=True, timeout=300)
    os.unlink(f.name)
    m = re.search(r"STEPI_RATE ([\d.]+)", out.stdout + out.stderr)
    if not m:
        raise RuntimeError("gdb did not report a rate:\n" + out.stdout + out.stderr)
    return float(m.group(1))


def bench_stepi(program):
    proc, port = start_stub(program, "--once")
    try:
        rate = gdb_stepi_rate(f"target remote 127.0.0.1:{port}")
    finally:
        proc.kill()
        proc.wait()
    print(f"  gdb-multiarch stepi against asmdbg (MIPS): {rate:,.0f}/s")
    qemu = shutil.which("qemu-mipsel")
    gas = shutil.which("mipsel-linux-gnu-as")
    ld = shutil.which("mipsel-linux-gnu-ld")
    if not (qemu and gas and ld):
        print("  qemu-mipsel comparison skipped: qemu-user or binutils-mipsel-linux-gnu missing")
        return
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "spin.s")
        with open(src, "w") as f:
            f.write(
                ".set noreorder\n.globl __start\n__start:\n li $8, 0\nspin:\n addiu $8, $8, 1\n"
                " xor $9, $8, $10\n addu $10, $10, $9\n j spin\n nop\n"
            )
        obj, elf = os.path.join(d, "spin.o"), os.path.join(d, "spin")
        subprocess.run([gas, "-EL", "-march=mips32", "-o", obj, src], check=True)
        subprocess.run([ld, "-EL", "-o", elf, obj], check=True)
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            qport = s.getsockname()[1]
        q = subprocess.Popen([qemu, "-g", str(qport), elf])
        try:
            time.sleep(0.5)
            qrate = gdb_stepi_rate(f"target remote 127.0.0.1:{qport}", elf=elf)
        finally:
            q.kill()
            q.wait()
    print(f"  gdb-multiarch stepi against qemu-mipsel -g: {qrate:,.0f}/s (asmdbg/qemu = {rate / qrate:.2f})")


def bench_continue_rate(bench_program):
    for traps in (False, True):
        proc, port = start_stub(bench_program, "--once")
        lines = ["set pagination off", "set confirm off", f"target remote 127.0.0.1:{port}"]
        if traps:
            lines += [f"break *{0x00408000 + 4 * i:#x}" for i in range(100)]
            lines += [f"watch *(int*){0x10030000 + 0x1000 * i:#x}" for i in range(4)]
        lines += ["python import time; t0 = time.time()", "continue", 'python print("CONTINUE_SECONDS %.4f" % (time.time() - t0))']
        with tempfile.NamedTemporaryFile("w", suffix=".gdb", delete=False) as f:
            f.write("\n".join(lines) + "\n")
        try:
            out = subprocess.run(
                ["gdb-multiarch", "-nx", "-batch", "-x", f.name], capture_output=True, text=True, timeout=300
            )
        finally:
            os.unlink(f.name)
            proc.kill()
            proc.wait()
        m = re.search(r"CONTINUE_SECONDS ([\d.]+)", out.stdout + out.stderr)
        label = "100 breakpoints + 4 watchpoints" if traps else "no breakpoints or watchpoints  "
        if m:
            secs = float(m.group(1))
            print(f"  continue over programs/mips/bench.asm (100 M instructions), {label}: {100.015 / secs:.1f} M instructions/s ({secs:.3f} s)")
        else:
            print(f"  continue, {label}: no result\n{out.stdout}{out.stderr}")


def main():
    if not shutil.which("gdb-multiarch"):
        print("gdb-multiarch missing: stub benchmarks skipped (scripts/test installs it)")
        return
    with tempfile.TemporaryDirectory() as d:
        spin = os.path.join(d, "spin.asm")
        with open(spin, "w") as f:
            f.write(SPIN_MIPS)
        print("== gdb stub")
        bench_round_trips(spin)
        bench_stepi(spin)
        bench_continue_rate(os.path.join(ROOT, "programs", "mips", "bench.asm"))


if __name__ == "__main__":
    main()
