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
import threading
import time

ASMDBG = sys.argv[1] if len(sys.argv) > 1 else "target/release/asmdbg"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# $t2 is set before the loop reads it: the debugger's checks are on by default, and an
# uninitialised read would be a stop (a console packet) in the middle of the round trips.
SPIN_MIPS = """\
        .text
main:   li $t0, 0
        li $t2, 0
spin:   addiu $t0, $t0, 1
        xor $t1, $t0, $t2
        addu $t2, $t2, $t1
        j spin
"""


def start_stub(program, *extra):
    return start_fed_stub(program, None, b"", *extra)


def packet(payload):
    return b"$%s#%02x" % (payload, sum(payload) & 0xFF)


def unrle(payload):
    """Expands the protocol's run-length encoding: `X*n` is X and n - 29 more of it."""
    out = bytearray()
    i = 0
    while i < len(payload):
        if payload[i : i + 1] == b"*" and out and i + 1 < len(payload):
            out += out[-1:] * (payload[i + 1] - 29)
            i += 2
        else:
            out += payload[i : i + 1]
            i += 1
    return bytes(out)


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
                    payload = unrle(self.buf[start + 1 : end])
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


def qemu_tools():
    """qemu-mipsel's path, or None (with a line saying what is missing)."""
    qemu = shutil.which("qemu-mipsel")
    if not (qemu and shutil.which("mipsel-linux-gnu-as") and shutil.which("mipsel-linux-gnu-ld")):
        print("  qemu-mipsel comparison skipped: qemu-user or binutils-mipsel-linux-gnu missing")
        return None
    return qemu


def linux_mips_program(d, source):
    """`source` assembled and linked with Debian's MIPS binutils in directory `d`: the path."""
    src, obj, elf = (os.path.join(d, n) for n in ("prog.s", "prog.o", "prog"))
    with open(src, "w") as f:
        f.write(source)
    subprocess.run(["mipsel-linux-gnu-as", "-EL", "-march=mips32", "-o", obj, src], check=True)
    subprocess.run(["mipsel-linux-gnu-ld", "-EL", "-o", elf, obj], check=True)
    return elf


def bench_stepi(program):
    proc, port = start_stub(program, "--once")
    try:
        rate = gdb_stepi_rate(f"target remote 127.0.0.1:{port}")
    finally:
        proc.kill()
        proc.wait()
    print(f"  gdb-multiarch stepi against asmdbg (MIPS): {rate:,.0f}/s")
    qemu = qemu_tools()
    if not qemu:
        return
    with tempfile.TemporaryDirectory() as d:
        elf = linux_mips_program(
            d,
            ".set noreorder\n.globl __start\n__start:\n li $8, 0\nspin:\n addiu $8, $8, 1\n"
            " xor $9, $8, $10\n addu $10, $10, $9\n j spin\n nop\n",
        )
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


def run_gdb_script(script, timeout):
    """Runs gdb-multiarch in batch mode on `script`; its stdout and stderr."""
    with tempfile.NamedTemporaryFile("w", suffix=".gdb", delete=False) as f:
        f.write(script)
    try:
        out = subprocess.run(
            ["gdb-multiarch", "-nx", "-batch", "-x", f.name], capture_output=True, text=True, timeout=timeout
        )
    finally:
        os.unlink(f.name)
    return out.stdout + out.stderr


def bench_continue_rate(bench_program):
    for traps, history in ((False, True), (True, True), (False, False)):
        proc, port = start_stub(bench_program, "--once", *(() if history else ("--no-history",)))
        lines = ["set pagination off", "set confirm off", f"target remote 127.0.0.1:{port}"]
        if traps:
            lines += [f"break *{0x00408000 + 4 * i:#x}" for i in range(100)]
            lines += [f"watch *(int*){0x10030000 + 0x1000 * i:#x}" for i in range(4)]
        lines += ["python import time; t0 = time.time()", "continue", 'python print("CONTINUE_SECONDS %.4f" % (time.time() - t0))']
        try:
            text = run_gdb_script("\n".join(lines) + "\n", 300)
        finally:
            proc.kill()
            proc.wait()
        m = re.search(r"CONTINUE_SECONDS ([\d.]+)", text)
        label = "100 breakpoints + 4 watchpoints" if traps else "no breakpoints or watchpoints  "
        label += ", time travel on " if history else ", time travel off"
        if m:
            secs = float(m.group(1))
            print(f"  continue over programs/mips/bench.asm (100 M instructions), {label}: {100.015 / secs:.1f} M instructions/s ({secs:.3f} s)")
        else:
            print(f"  continue, {label}: no result\n{text}")


def bench_time_travel(bench_program, instructions, label):
    """Reverse execution over a run of programs/mips/bench.asm: reverse-stepi per second from
    the end and from the middle (monitor goto), reverse-continue across the whole run to a
    breakpoint at the start, and the history's memory."""
    proc, port = start_stub(bench_program, "--once")
    script = f"""
set pagination off
set confirm off
target remote 127.0.0.1:{port}
python
import time
t = time.time()
gdb.execute("continue", to_string=True)
print("FORWARD_SECONDS %.4f" % (time.time() - t))
t = time.time()
for _ in range(500):
    gdb.execute("reverse-stepi", to_string=True)
print("BS_END_RATE %.1f" % (500 / (time.time() - t)))
gdb.execute("monitor goto {instructions // 2}", to_string=True)
gdb.execute("maint flush register-cache", to_string=True)
t = time.time()
for _ in range(500):
    gdb.execute("reverse-stepi", to_string=True)
print("BS_MID_RATE %.1f" % (500 / (time.time() - t)))
gdb.execute("break *0x00400000", to_string=True)
gdb.execute("monitor goto {instructions}", to_string=True)
gdb.execute("maint flush register-cache", to_string=True)
t = time.time()
gdb.execute("reverse-continue", to_string=True)
print("BC_SECONDS %.4f" % (time.time() - t))
print("HISTORY " + gdb.execute("monitor history", to_string=True).replace("\\n", " | "))
end
kill
"""
    try:
        text = run_gdb_script(script, 600)
    finally:
        proc.kill()
        proc.wait()
    found = {k: re.search(k + r" ([\d.]+)", text) for k in ("FORWARD_SECONDS", "BS_END_RATE", "BS_MID_RATE", "BC_SECONDS")}
    if not all(found.values()):
        print("  time travel: no result\n" + text)
        return
    fwd, end, mid, bc = (float(found[k].group(1)) for k in ("FORWARD_SECONDS", "BS_END_RATE", "BS_MID_RATE", "BC_SECONDS"))
    print(f"  time travel, {label}: forward {fwd:.3f} s")
    print(f"  reverse-stepi through gdb-multiarch: {end:,.0f}/s at the end, {mid:,.0f}/s in the middle")
    print(f"  reverse-continue across the run to its first instruction: {bc:.3f} s ({bc / fwd:.2f} x the forward run)")
    history = re.search(r"HISTORY (.*)", text)
    if history:
        print("  " + history.group(1).strip())


def start_fed_stub(program, feed, prefix, *extra):
    """`asmdbg debug` with its console on stdio, fed `prefix` then `feed` over and over by a
    thread (the pipe blocks when asmdbg wants no more, so input comes as fast as it is taken)."""
    proc = subprocess.Popen(
        [ASMDBG, "debug", program, "--gdb", "127.0.0.1:0", "--console", "stdio", *extra],
        stdin=subprocess.PIPE if feed else subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=False,
    )

    def pump():
        chunk = feed * max(1, 65536 // len(feed))
        try:
            proc.stdin.write(prefix)
            while True:
                proc.stdin.write(chunk)
                proc.stdin.flush()
        except (BrokenPipeError, ValueError, OSError):
            pass

    if feed:
        threading.Thread(target=pump, daemon=True).start()
    port = None
    while port is None:
        line = proc.stderr.readline().decode()
        if not line:
            raise RuntimeError("asmdbg debug exited early")
        m = re.match(r"gdb: listening on 127\.0\.0\.1:(\d+)", line)
        if m:
            port = int(m.group(1))
    proc.stderr.readline()  # console line
    return proc, port


def monitor(rsp, command):
    """A `monitor` command over RSP (qRcmd): its text."""
    rsp.sock.sendall(packet(b"qRcmd," + command.encode().hex().encode()))
    text = b""
    while True:
        reply = rsp.read_packet()
        if reply.startswith(b"O") and reply != b"OK":
            text += bytes.fromhex(reply[1:].decode())
        elif reply.startswith(b"E"):
            raise RuntimeError(f"monitor {command}: {reply!r}")
        else:
            text += bytes.fromhex(reply.decode()) if reply not in (b"OK", b"") else b""
            return text.decode()


def peak_rss_mib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def history_after(label, program, feed, prefix=b"", extra=(), instructions=None, seconds=None, look_every=1.0):
    """Runs `program` under the stub (continue; every `look_every` s a Ctrl-C, `monitor when`
    and continue again, as a student looking now and then) until it has run `instructions`
    or for `seconds`, or until it ends; then prints `monitor history` and the peak RSS."""
    proc, port = start_fed_stub(program, feed, prefix, "--once", *extra)
    try:
        rsp = Rsp(port)
        rsp.call(b"?")
        t0 = time.perf_counter()
        count, looks = 0, 0
        while True:
            rsp.sock.sendall(packet(b"vCont;c"))
            deadline = time.perf_counter() + look_every
            rsp.sock.settimeout(look_every)
            try:
                reply = rsp.read_packet()  # the run stopped by itself (its end)
                ended = True
            except socket.timeout:
                ended = False
            rsp.sock.settimeout(None)
            if not ended:
                time.sleep(max(0.0, deadline - time.perf_counter()))
                rsp.sock.sendall(b"\x03")
                reply = rsp.read_packet()
            looks += 1
            count = int(re.search(r"instruction (\d+)", monitor(rsp, "when")).group(1))
            elapsed = time.perf_counter() - t0
            if ended or (instructions and count >= instructions) or (seconds and elapsed >= seconds):
                break
        history = monitor(rsp, "history").strip().replace("\n", " | ")
        rss = peak_rss_mib(proc.pid)
        rsp.sock.sendall(packet(b"k"))
    finally:
        proc.kill()
        proc.wait()
    how = "ended" if ended else f"{looks} stops"
    print(f"  {label}: {count:,} instructions in {elapsed:.0f} s ({how})")
    print(f"    {history}")
    print(f"    asmdbg peak resident memory: {rss:.0f} MiB")


def bench_history_memory(d):
    """History memory after 10^9 instructions of each game's loop, and after minutes of
    play (ASMDBG_BENCH_PLAY_SECONDS, default 600). The LC-3 games loop on an invalid move for
    as long as one comes; the MIPS game's menu asks again for as long as a wrong choice comes
    (11 instructions a line: input-bound, so 2 x 10^8); the SimpleRISC verifier and the MIPS
    game end by themselves, so their machines' 10^9 loops are the bench programs."""
    print("== time travel: history memory (cap 256 MiB)")
    lc3 = os.path.join(ROOT, "programs", "lc3")
    for game, feed in (("nim.asm", b"D4"), ("dots.asm", b"&&"), ("connect4.asm", b"7\n")):
        history_after(f"LC-3 {game}, an invalid move over and over", os.path.join(lc3, game), feed, instructions=10**9)
    history_after(
        "MIPS four_in_a_row.asm, names then a wrong menu choice over and over",
        os.path.join(ROOT, "programs", "mips", "four_in_a_row.asm"),
        b"9\n",
        prefix=b"Alice\nBob\n",
        instructions=2 * 10**8,
    )
    bench = os.path.join(ROOT, "programs", "mips", "bench.asm")
    long_mips = os.path.join(d, "bench_1g.asm")
    with open(bench) as src, open(long_mips, "w") as dst:
        dst.write(src.read().replace("li    $t3, 5000", "li    $t3, 15812"))
    history_after("MIPS bench.asm with bound 15,812", long_mips, None, instructions=10**9)
    tictactoe = os.path.join(ROOT, "programs", "simplerisc", "tictactoe.asm")
    board = "1,2,0,0,0,0,2,1,0,0,0,0,1,2,1,0,0,0,2,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0"
    history_after("SimpleRISC tictactoe.asm (the verifier)", tictactoe, None, extra=("--no-mul", "--poke", f"1000={board}"))
    with open(os.path.join(ROOT, "..", "shared", "reference", "probes", "simplerisc", "bench.asm")) as src:
        sr = src.read()
    sr = sr.replace("movu r3, 0x4240", "movu r3, 0xC200").replace("addh r3, r3, 0x000F", "addh r3, r3, 0x0BEB")
    long_sr = os.path.join(d, "sr_bench_1g.asm")
    with open(long_sr, "w") as f:
        f.write(sr)
    history_after("SimpleRISC probes bench.asm, 2 x 10^8 iterations", long_sr, None, extra=("--isa", "simplerisc"), instructions=10**9)
    seconds = float(os.environ.get("ASMDBG_BENCH_PLAY_SECONDS", "600"))
    history_after(
        f"LC-3 dots.asm played for {seconds:.0f} s (invalid moves as fast as it takes them, a stop every 2 s)",
        os.path.join(lc3, "dots.asm"),
        b"&&",
        seconds=seconds,
        look_every=2.0,
    )


class DapBench:
    """A minimal DAP client over `asmdbg dap`'s pipes."""

    def __init__(self):
        self.proc = subprocess.Popen([ASMDBG, "dap"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.seq = 0

    def read(self):
        length = None
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError("asmdbg dap closed its output")
            line = line.strip()
            if not line:
                break
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        import json

        return json.loads(self.proc.stdout.read(length))

    def send(self, command, **arguments):
        import json

        self.seq += 1
        body = json.dumps({"seq": self.seq, "type": "request", "command": command, "arguments": arguments}).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()
        return self.seq

    def call(self, command, **arguments):
        seq = self.send(command, **arguments)
        while True:
            m = self.read()
            if m.get("type") == "response" and m.get("request_seq") == seq:
                if not m.get("success"):
                    raise RuntimeError(f"{command}: {m.get('message')}")
                return m.get("body", {})

    def wait(self, event):
        while True:
            m = self.read()
            if m.get("type") == "event" and m.get("event") == event:
                return m.get("body", {})

    def close(self):
        self.proc.kill()
        self.proc.wait()


# programs/mips/bench.asm for Linux under qemu-mipsel: the same 4-instruction inner loop (its
# increment in the branch's delay slot, which real MIPS has and MARS's default does not), the
# same 5000 x 5000 iterations, then exit(0). 100,040,005 instructions against asmdbg's
# 100,015,011.
MIPS_LOOP_LINUX = """\
        .set noreorder
        .globl __start
__start:
        li    $8, 0
        li    $11, 5000
        li    $10, 0
outer:  li    $9, 0
inner:  xor   $12, $8, $9
        addu  $10, $10, $12
        addiu $9, $9, 1
        bne   $9, $11, inner
        nop
        addiu $8, $8, 1
        bne   $8, $11, outer
        nop
        li    $4, 0
        li    $2, 4001
        syscall
"""


def bench_mips_against_qemu(bench_program):
    """programs/mips/bench.asm under `asmdbg run` beside the equivalent loop under
    qemu-mipsel (a JIT), alternated three times; the best of each and their ratio."""
    qemu = qemu_tools()
    if not qemu:
        return
    with tempfile.TemporaryDirectory() as d:
        elf = linux_mips_program(d, MIPS_LOOP_LINUX)
        ours, theirs = [], []
        for _ in range(3):
            out = subprocess.run([ASMDBG, "run", bench_program, "--stats"], capture_output=True, text=True)
            m = re.search(r"stats: (\d+) instructions in ([\d.]+) s", out.stderr)
            if not m:
                print("  asmdbg run gave no stats line:\n" + out.stderr)
                return
            ours.append(int(m.group(1)) / float(m.group(2)) / 1e6)
            t = time.perf_counter()
            subprocess.run([qemu, elf], check=True)
            theirs.append(100_040_005 / (time.perf_counter() - t) / 1e6)
    best_ours, best_theirs = max(ours), max(theirs)
    print(
        f"  MIPS loop: asmdbg run {best_ours:.0f} M instructions/s, qemu-mipsel {best_theirs:.0f} M instructions/s "
        f"(asmdbg/qemu = {best_ours / best_theirs:.2f}; best of 3 each, alternated)"
    )


def dap_continue_seconds(program, launch, traps=None):
    """Seconds of one `continue` from the entry to the program's end through `asmdbg dap`."""
    dap = DapBench()
    try:
        dap.call("initialize", adapterID="bench")
        dap.call("launch", program=program, stopOnEntry=True, console="internalConsole", **launch)
        if traps:
            code, data = traps
            dap.call("setInstructionBreakpoints", breakpoints=[{"instructionReference": a} for a in code])
            ids = [dap.call("dataBreakpointInfo", name=a)["dataId"] for a in data]
            dap.call("setDataBreakpoints", breakpoints=[{"dataId": d, "accessType": "write"} for d in ids])
        dap.call("configurationDone")
        dap.wait("stopped")
        t = time.perf_counter()
        dap.call("continue", threadId=1)
        while True:
            m = dap.read()
            # With history the end is a stop first; without, the program exits.
            if m.get("type") == "event" and m.get("event") in ("stopped", "terminated"):
                break
        return time.perf_counter() - t
    finally:
        dap.close()


def bench_dap_continue(tmp):
    """`continue` through `asmdbg dap` over each machine's bench loop: time travel recording
    on and off, and (MIPS, as gdb's lines above) 100 instruction + 4 data breakpoints where the
    loop never goes."""
    probes = os.path.join(ROOT, "..", "shared", "reference", "probes")
    sr = os.path.join(tmp, "sr_bench_x10.asm")
    with open(os.path.join(probes, "simplerisc", "bench.asm")) as src, open(sr, "w") as dst:
        dst.write(src.read().replace("movu r3, 0x4240", "movu r3, 0x9680").replace("addh r3, r3, 0x000F", "addh r3, r3, 0x0098"))
    # LC-3's loop x10 (OUTER 1,000 -> 10,000, 600 M instructions): at compiled speed the 60 M
    # of the probe took ~0.02 s, where the DAP round trip's fixed costs swung the ratio.
    lc3 = os.path.join(tmp, "lc3_bench_x10.asm")
    with open(os.path.join(probes, "lc3", "bench.asm")) as src, open(lc3, "w") as dst:
        dst.write(src.read().replace("OUTER   .FILL #1000", "OUTER   .FILL #10000"))
    mips_traps = ([f"{0x00408000 + 4 * i:#x}" for i in range(100)], [f"{0x10030000 + 0x1000 * i:#x}" for i in range(4)])
    runs = [
        ("LC-3 probes/lc3/bench.asm x10 (600 M)", lc3, {"isa": "lc3"}, 600.0, None),
        ("SimpleRISC bench.asm x10 (50 M)", sr, {"isa": "simplerisc"}, 50.0, None),
        ("MIPS programs/mips/bench.asm (100 M)", os.path.join(ROOT, "programs", "mips", "bench.asm"), {}, 100.015, None),
        ("MIPS programs/mips/bench.asm (100 M)", os.path.join(ROOT, "programs", "mips", "bench.asm"), {}, 100.015, mips_traps),
    ]
    for label, program, launch, millions, traps in runs:
        rates = {}
        for history in (True, False):
            if traps and not history:
                continue
            extra = dict(launch)
            if not history:
                extra["noHistory"] = True
            secs = dap_continue_seconds(program, extra, traps)
            rates[history] = millions / secs
            what = ("100 instruction + 4 data breakpoints, " if traps else "") + ("recording on" if history else "recording off")
            print(f"  DAP continue, {label}, {what}: {millions / secs:.1f} M instructions/s ({secs:.3f} s)")
        if len(rates) == 2:
            print(f"  DAP continue, {label}: recording keeps {100 * rates[True] / rates[False]:.0f}% of the rate")


def main():
    if not shutil.which("gdb-multiarch"):
        print("gdb-multiarch missing: stub benchmarks skipped (scripts/test installs it)")
        return
    with tempfile.TemporaryDirectory() as d:
        spin = os.path.join(d, "spin.asm")
        with open(spin, "w") as f:
            f.write(SPIN_MIPS)
        print("== gdb stub")
        bench_mips_against_qemu(os.path.join(ROOT, "programs", "mips", "bench.asm"))
        bench_round_trips(spin)
        bench_stepi(spin)
        bench_continue_rate(os.path.join(ROOT, "programs", "mips", "bench.asm"))
        bench_dap_continue(d)
        bench = os.path.join(ROOT, "programs", "mips", "bench.asm")
        bench_time_travel(bench, 100_015_011, "programs/mips/bench.asm (100 M instructions)")
        # The same loop with a bound of 15,812: 4 x 15,812^2 + 3 x 15,812 + 11 = 1,000,124,823 instructions.
        long_run = os.path.join(d, "bench_1g.asm")
        with open(bench) as src, open(long_run, "w") as dst:
            dst.write(src.read().replace("li    $t3, 5000", "li    $t3, 15812"))
        bench_time_travel(long_run, 1_000_124_823, "bench.asm with bound 15,812 (10^9 instructions)")
        bench_history_memory(d)


if __name__ == "__main__":
    main()
