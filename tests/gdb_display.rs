//! gdb-multiarch against `asmdbg debug` of a program with a display: `monitor display`,
//! `monitor display png` of the frame now (also after stepping back), `monitor key` on the
//! MMIO keyboard, and a watchpoint on a framebuffer word.

mod support;

use asmdbg_testsupport::require_tool;
use support::{assert_in_order, Scratch, Stub};

/// Waits for a key on the MMIO keyboard, then paints unit 0 with its code as a colour and
/// unit 1 red. 0x400000 lui $s0 | 04 poll: lw | 08 andi | 0c beqz | 10 lw $t1, 4($s0)
/// 14 sw $t1, 0($gp) | 18 lui $at (li) | 1c ori | 20 sw $t0, 4($gp) | 24 li $v0 | 28 syscall
const PROGRAM: &str = "\
# Unit width in pixels: 8
# Unit height in pixels: 8
# Display width in pixels: 64
# Display height in pixels: 64
# Base Address for Display: 0x10008000 ($gp)
        .text
main:   lui  $s0, 0xffff
poll:   lw   $t0, 0($s0)
        andi $t0, $t0, 1
        beqz $t0, poll
        lw   $t1, 4($s0)
        sw   $t1, 0($gp)
        li   $t0, 0x00ff0000
        sw   $t0, 4($gp)
        li   $v0, 10
        syscall
";

fn pixels(path: &std::path::Path) -> Vec<u32> {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let (_, _, pixels) = asmdbg_core::display::read_png(&bytes).unwrap_or_else(|e| panic!("{e}"));
    pixels
}

#[test]
fn monitor_display_key_and_a_watch_on_a_pixel() {
    if !require_tool("gdb-multiarch") {
        return;
    }
    let dir = Scratch::new();
    let prog = dir.write("paint.asm", PROGRAM);
    let stub = Stub::start(&prog, &[]);
    let after = dir.path().join("after.png");
    let back = dir.path().join("back.png");
    let out = stub.gdb(&format!(
        "monitor display\n\
         break *0x400010\n\
         monitor key A\n\
         continue\n\
         p $t0\n\
         watch *(int*)0x10008004\n\
         continue\n\
         p/x $pc\n\
         monitor display png {after}\n\
         reverse-stepi\n\
         p/x $pc\n\
         monitor display png {back}\n\
         monitor key 0x7\n\
         monitor key ab\n\
         monitor display png /nonexistent/dir/x.png",
        after = after.display(),
        back = back.display()
    ));
    // gdb prints the monitor's replies on stderr, after its own stdout.
    assert_in_order(
        &out,
        &[
            "Breakpoint",
            "$1 = 1",
            "atchpoint",
            "New value = 16711680",
            "$2 = 0x400024",
            "$3 = 0x400020",
        ],
    );
    assert_in_order(
        &out,
        &[
            "display: 8 x 8 units of 8 x 8 pixels; memory 0x10008000 to 0x100080ff",
            "1 key(s) pressed on the keyboard",
            "wrote the frame at instruction 9",
            "wrote the frame at instruction 8",
            "1 key(s) pressed on the keyboard",
            "'ab' is not one printable character",
            "cannot write /nonexistent/dir/x.png",
        ],
    );
    // The key 'A' (0x41) painted unit 0; the red store drew unit 1 (pixels 8-15 of row 0).
    let last = pixels(&after);
    assert_eq!((last[0], last[8]), (0x41, 0xff0000));
    let earlier = pixels(&back);
    assert_eq!(
        (earlier[0], earlier[8]),
        (0x41, 0),
        "stepping back redraws the earlier frame"
    );
}
