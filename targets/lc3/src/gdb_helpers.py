# asmdbg's LC-3 helpers for gdb (after the common ones, in the same ELF script). gdb sees LC-3
# memory at byte addresses twice the LC-3 word address (x3000 is gdb's 0x6000, each word two
# bytes, low byte first), so `break *0x3000` and `x/4xh 0x3000` look at the wrong place. These
# take LC-3 addresses as the LC-3 tools write them:
#
#   lc3 break x3000       lc3 tbreak x3000     break on the instruction at x3000
#   lc3 watch x4000       lc3 rwatch / awatch  watch the word at x4000 (writes / reads / both)
#   lc3 x/4 x4000         lc3 x/8d LABEL       words from x4000 (formats x d u c s, default x)
#   lc3 set x4000 = 5                          write a word
#   lc3 addr x3000                             gdb's address of x3000 (0x6000)
#   p $lc3(0x3000)        p $lc3("x3000")      the same as a value: break *$lc3(0x3000)
#
# An address is x3000, #12288, 0x3000, 12288 or a label (a label's address is already gdb's).

import gdb


def _word_address(text):
    """The LC-3 word address `text` names (a label through gdb's symbols)."""
    t = text.strip()
    try:
        if t[:1] in ("x", "X") and len(t) > 1:
            return int(t[1:], 16) & 0xFFFF
        if t.startswith("#"):
            return int(t[1:], 10) & 0xFFFF
        if t.lower().startswith("0x"):
            return int(t, 16) & 0xFFFF
        if t.lstrip("-").isdigit():
            return int(t, 10) & 0xFFFF
    except ValueError:
        pass
    try:
        return (int(gdb.parse_and_eval("&" + t)) // 2) & 0xFFFF
    except gdb.error:
        raise gdb.GdbError("not an LC-3 address or a label: %s (write x3000, #12288 or a label)" % t)


def _gdb_address(text):
    return 2 * _word_address(text)


def _lc3(n):
    return "x%04X" % (n & 0xFFFF)


class _Lc3Address(gdb.Function):
    """$lc3(ADDR): gdb's address of the LC-3 word at ADDR (0x3000 or "x3000" -> 0x6000)."""

    def __init__(self):
        super().__init__("lc3")

    def invoke(self, address):
        if address.type.code == gdb.TYPE_CODE_ARRAY or address.type.code == gdb.TYPE_CODE_PTR:
            try:
                return _gdb_address(address.string())
            except gdb.error:
                pass
        return 2 * (int(address) & 0xFFFF)


class _Lc3(gdb.Command):
    """LC-3 addresses for gdb's commands: lc3 break|tbreak|watch|rwatch|awatch|x|set|addr.
gdb sees LC-3 memory at twice the LC-3 address (x3000 is 0x6000); these take LC-3 addresses:
  lc3 break x3000          break on the instruction at x3000 (tbreak: once)
  lc3 watch x4000          watch the word at x4000 (rwatch: reads, awatch: both)
  lc3 x/4 x4000            4 words from x4000; formats x (default) d u c s: lc3 x/8d LABEL
  lc3 set x4000 = 5        write the word at x4000
  lc3 addr x3000           gdb's address of x3000
  $lc3(0x3000), $lc3("x3000")   the same in expressions: break *$lc3(0x3000)
An address is x3000, #12288, 0x3000, 12288 or a label."""

    def __init__(self):
        super().__init__("lc3", gdb.COMMAND_USER, prefix=True)

    def invoke(self, arg, from_tty):
        if arg.strip():
            raise gdb.GdbError("unknown lc3 command: %s (help lc3)" % arg.split()[0])
        gdb.write(self.__doc__ + "\n")


class _Breakpoint(gdb.Command):
    def __init__(self, name, gdb_command, doc):
        self.__doc__ = doc
        super().__init__("lc3 " + name, gdb.COMMAND_BREAKPOINTS)
        self.gdb_command = gdb_command

    def invoke(self, arg, from_tty):
        if not arg.strip():
            raise gdb.GdbError("usage: lc3 %s ADDRESS" % self.gdb_command)
        gdb.execute("%s *0x%x" % (self.gdb_command, _gdb_address(arg)), from_tty)


class _Watch(gdb.Command):
    def __init__(self, name, doc):
        self.__doc__ = doc
        super().__init__("lc3 " + name, gdb.COMMAND_BREAKPOINTS)
        self.gdb_command = name

    def invoke(self, arg, from_tty):
        if not arg.strip():
            raise gdb.GdbError("usage: lc3 %s ADDRESS" % self.gdb_command)
        word = _word_address(arg)
        t = arg.strip()
        if t[:1] not in "xX#" and not t.lstrip("-").isdigit() and not t.lower().startswith("0x"):
            # A label is a typed variable already: gdb then names it.
            gdb.execute("%s %s" % (self.gdb_command, t), from_tty)
            return
        gdb.execute("%s *(short *)0x%x" % (self.gdb_command, 2 * word), from_tty)


class _Examine(gdb.Command):
    """lc3 x/NF ADDRESS: N words (default 1) from an LC-3 address, in format F: x hex (default),
d signed, u unsigned, c character, s a string of one character a word (.STRINGZ)."""

    def __init__(self):
        super().__init__("lc3 x", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        spec, _, rest = arg.strip().partition(" ")
        if spec.startswith("/"):
            fmt = spec[1:]
        else:
            fmt, rest = "", arg
        count = int("".join(c for c in fmt if c.isdigit()) or "1")
        letters = [c for c in fmt if c.isalpha()]
        kind = letters[-1] if letters else "x"
        if kind not in "xducs":
            raise gdb.GdbError("lc3 x: format %s is not one of x d u c s" % kind)
        if not rest.strip():
            raise gdb.GdbError("usage: lc3 x/NF ADDRESS")
        start = _word_address(rest)
        memory = gdb.selected_inferior()
        if kind == "s":
            text = ""
            for i in range(min(count * 256, 4096)):
                w = int.from_bytes(bytes(memory.read_memory(2 * ((start + i) & 0xFFFF), 2)), "little")
                if w == 0:
                    break
                text += chr(w & 0xFF)
            gdb.write('%s: "%s"\n' % (_lc3(start), text.encode("unicode_escape").decode()))
            return
        words = [
            int.from_bytes(bytes(memory.read_memory(2 * ((start + i) & 0xFFFF), 2)), "little")
            for i in range(count)
        ]
        shown = {
            "x": lambda w: _lc3(w),
            "d": lambda w: "%d" % (w - 0x10000 if w & 0x8000 else w),
            "u": lambda w: "%d" % w,
            "c": lambda w: repr(chr(w & 0xFF)) if w < 0x100 else _lc3(w),
        }[kind]
        for row in range(0, count, 8):
            cells = "  ".join(shown(w) for w in words[row:row + 8])
            gdb.write("%s:  %s\n" % (_lc3(start + row), cells))


class _Set(gdb.Command):
    """lc3 set ADDRESS = VALUE: write the word at an LC-3 address (VALUE: x1F, #-3, 5, ...)."""

    def __init__(self):
        super().__init__("lc3 set", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        where, eq, value = arg.partition("=")
        if not eq or not value.strip():
            raise gdb.GdbError("usage: lc3 set ADDRESS = VALUE")
        v = value.strip()
        expression = v
        if v[:1] in ("x", "X", "#") and len(v) > 1:
            try:
                expression = "%d" % (int(v[1:], 16) if v[0] in "xX" else int(v[1:], 10))
            except ValueError:
                pass
        gdb.execute("set var *(short *)0x%x = %s" % (_gdb_address(where), expression), from_tty)


class _Address(gdb.Command):
    """lc3 addr ADDRESS: gdb's address of an LC-3 address (x3000 -> 0x6000)."""

    def __init__(self):
        super().__init__("lc3 addr", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        word = _word_address(arg)
        gdb.write("%s is gdb's 0x%x\n" % (_lc3(word), 2 * word))


_Lc3Address()
_Lc3()
_Breakpoint("break", "break", "lc3 break ADDRESS: break on the instruction at an LC-3 address.")
_Breakpoint("tbreak", "tbreak", "lc3 tbreak ADDRESS: the same, once.")
_Watch("watch", "lc3 watch ADDRESS: stop when the word at an LC-3 address is written.")
_Watch("rwatch", "lc3 rwatch ADDRESS: stop when the word at an LC-3 address is read.")
_Watch("awatch", "lc3 awatch ADDRESS: stop when the word at an LC-3 address is read or written.")
_Examine()
_Set()
_Address()
