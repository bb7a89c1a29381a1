# asmdbg's gdb helpers. Every ELF asmdbg writes carries this script in its .debug_gdb_scripts
# section; gdb runs it when it loads the ELF, once the ELF's folder is in gdb's auto-load
# safe-path (gdb says so, and names the line to add, when it declines). The ELF writer puts
# ASMDBG_ISA ("lc3", "mips" or "simplerisc") in front of it, and the ISA's own helpers after.
#
# What it gives every machine:
# - reverse-step, reverse-next, reverse-nexti and reverse-finish (and rs, rn, rni) by asmdbg's
#   one rule for every ISA (session/src/reverse.rs): a frame is the function it runs and its
#   CFA; a step back that lands in a function the frame called runs back to that call's entry
#   in that frame, then to the call. The command arms the motion with `monitor
#   asmdbg-reverse`, then its `reverse-stepi` runs it in asmdbg, so gdb sees one step (its
#   breakpoints, watchpoints and printing as for any step). gdb's own commands take a
#   function's extent from the debug information's range around the pc, and asmdbg's MIPS
#   ELF cuts functions into ranges after every branch (gdb's MIPS port otherwise moves
#   breakpoints off the instruction after a branch, a delay slot for it but not for MARS):
#   gdb's own reverse-next over a nested call stopped inside the callee.
# - after every `monitor` command (goto, reset, ...) gdb forgets the registers it read and
#   reads its watchpoints' values again: the machine may have moved under it, and a
#   watchpoint's "Old value" would otherwise be the value from before.
import gdb


def _announce(_event=None):
    """Tells asmdbg the helpers are here (it then does not tell gdb they are missing)."""
    try:
        gdb.execute("monitor asmdbg-helpers", to_string=True)
    except gdb.error:
        pass


def _count(arg):
    arg = (arg or "").strip()
    if not arg:
        return 1
    try:
        return max(1, int(gdb.parse_and_eval(arg)))
    except gdb.error:
        raise gdb.GdbError("Invalid count: " + arg)


def _reverse(words):
    """Arms asmdbg's motion and runs it as one reverse step."""
    gdb.execute("monitor asmdbg-reverse " + words, to_string=True)
    gdb.execute("reverse-stepi")


class _ReverseMotion(gdb.Command):
    def __init__(self, name, motion, doc):
        self.__doc__ = doc
        super().__init__(name, gdb.COMMAND_RUNNING)
        self.motion = motion

    def invoke(self, arg, from_tty):
        _reverse("%s %d" % (self.motion, _count(arg)))


class _ReverseFinish(gdb.Command):
    """Execute backward until just before selected stack frame is called (asmdbg: back to the
    frame's entry, then to its call)."""

    def __init__(self):
        super().__init__("reverse-finish", gdb.COMMAND_RUNNING)

    def invoke(self, arg, from_tty):
        frame = gdb.selected_frame()
        if frame.older() is None:
            raise gdb.GdbError('"finish" not meaningful in the outermost frame.')
        described = gdb.execute("frame %d" % frame.level(), to_string=True).splitlines()
        if described:
            gdb.write("Run back to call of " + described[0] + "\n")
        _reverse("finish %d" % frame.level())


_NEXT = """Step program backward, proceeding through subroutine calls.
Usage: reverse-next [N]
(asmdbg: a call is run back to its entry in this frame, then to the call.)"""
_STEP = """Step program backward until it reaches the beginning of another source line.
Usage: reverse-step [N]
(asmdbg: back into the last line of a function this frame called.)"""
_NEXTI = """Step backward one instruction, but proceed through called subroutines.
Usage: reverse-nexti [N]"""

for _name, _motion, _doc in (("reverse-next", "next", _NEXT), ("rn", "next", _NEXT),
                             ("reverse-step", "step", _STEP), ("rs", "step", _STEP),
                             ("reverse-nexti", "nexti", _NEXTI), ("rni", "nexti", _NEXTI)):
    _ReverseMotion(_name, _motion, _doc)
_ReverseFinish()


class _AfterMonitor(gdb.Command):
    """asmdbg: after a monitor command, forget the registers read and read watchpoints again."""

    def __init__(self):
        super().__init__("asmdbg-after-monitor", gdb.COMMAND_MAINTENANCE)

    def invoke(self, arg, from_tty):
        gdb.execute("maint flush register-cache", to_string=True)
        for bp in gdb.breakpoints():
            if bp.type in _WATCHPOINTS and bp.enabled:
                # Enabling parses the expression again and reads its value afresh.
                bp.enabled = True


_WATCHPOINTS = (gdb.BP_WATCHPOINT, gdb.BP_HARDWARE_WATCHPOINT, gdb.BP_READ_WATCHPOINT,
                gdb.BP_ACCESS_WATCHPOINT)
_AfterMonitor()
_confirm = gdb.parameter("confirm")
gdb.execute("set confirm off")
try:
    gdb.execute("define hookpost-monitor\nasmdbg-after-monitor\nend", to_string=True)
finally:
    gdb.execute("set confirm %s" % ("on" if _confirm else "off"))

# Each connection is told (a new connection makes a new thread for gdb).
_previous = getattr(gdb, "_asmdbg_announce", None)
if _previous is not None:
    gdb.events.new_thread.disconnect(_previous)
gdb._asmdbg_announce = _announce
gdb.events.new_thread.connect(_announce)
_announce()
