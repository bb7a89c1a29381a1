//! The command line of displays and keyboards: `--bitmap` and the header that configures a
//! MARS Bitmap Display, `--display`, `--keys`, `--display-png`, MARS's memory-range
//! arguments, and the clear errors each gives for bad input.

mod support;

use support::{asmdbg_in, text, Scratch};

/// Paints unit (1, 0) red and unit (0, 1) green of a display at $gp with 8-pixel units.
const PAINT: &str = "\
# Bitmap Display Configuration:
# - Unit width in pixels: 8
# - Unit height in pixels: 8
# - Display width in pixels: 64
# - Display height in pixels: 64
# - Base Address for Display: 0x10008000 ($gp)
.text
main:   li $t0, 0x00ff0000
        sw $t0, 4($gp)
        li $t0, 0x0000ff00
        sw $t0, 32($gp)
        li $v0, 10
        syscall
";

fn png_pixels(path: &std::path::Path) -> (u32, u32, Vec<u32>) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    asmdbg_core::display::read_png(&bytes).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn a_header_configures_the_display_and_says_so() {
    let dir = Scratch::with_files(&[("paint.asm", PAINT)]);
    let out = asmdbg_in(
        dir.path(),
        &["run", "paint.asm", "--display-png", "frame.png"],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(
            "asmdbg: Bitmap Display 64x64,unit=8,base=0x10008000, as the header of paint.asm states"
        ),
        "{stderr}"
    );
    let (w, h, pixels) = png_pixels(&dir.path().join("frame.png"));
    assert_eq!((w, h), (64, 64));
    assert_eq!(pixels[8], 0xff0000, "unit (1, 0) is pixels 8-15 of row 0");
    assert_eq!(pixels[15], 0xff0000);
    assert_eq!(pixels[8 * 64], 0x00ff00, "unit (0, 1) starts on row 8");
    assert_eq!(pixels[0], 0);
}

#[test]
fn the_flag_wins_over_the_header() {
    let dir = Scratch::with_files(&[("paint.asm", PAINT)]);
    let out = asmdbg_in(
        dir.path(),
        &[
            "run",
            "paint.asm",
            "--bitmap",
            "128x64,unit=4,base=gp",
            "--display-png",
            "f.png",
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(!text(&out.stderr).contains("as the header"));
    let (w, h, pixels) = png_pixels(&dir.path().join("f.png"));
    assert_eq!((w, h), (128, 64));
    // 32 units across: word 8 is unit (8, 0), pixels 32-35 of row 0.
    assert_eq!(pixels[32], 0x00ff00);
    assert_eq!(pixels[4], 0xff0000);
}

#[test]
fn bad_display_flags_say_what_is_wrong() {
    let dir = Scratch::with_files(&[
        ("paint.asm", PAINT),
        ("plain.asm", ".text\nli $v0, 10\nsyscall\n"),
        ("keys", "10 w\n5 a\n"),
        ("lc3.asm", ".ORIG x3000\nHALT\n.END\n"),
    ]);
    for (args, says) in [
        (
            &["run", "paint.asm", "--bitmap", "100x64"][..],
            "display width 100 is not one MARS's Bitmap Display offers",
        ),
        (
            &["run", "paint.asm", "--bitmap", "base=0x10000004"][..],
            "MARS's Bitmap Display starts at",
        ),
        (
            &["run", "plain.asm", "--keys", "keys"][..],
            "keys:2: count 5 comes before the previous line's 10",
        ),
        (
            &["run", "plain.asm", "--keys", "missing.keys"][..],
            "missing.keys",
        ),
        (
            &["run", "plain.asm", "--display-png", "x.png"][..],
            "--display-png needs a display",
        ),
        (
            &["run", "lc3.asm", "--bitmap", "64x64"][..],
            "--bitmap (MIPS only)",
        ),
        (
            &["run", "plain.asm", "--display"][..],
            "--display (LC-3 only)",
        ),
        (
            &["run", "plain.asm", "0x10010002-0x10010010"][..],
            "Invalid/unaligned address or invalid range: 0x10010002-0x10010010",
        ),
        (
            &["run", "plain.asm", "0x10010010-0x10010000"][..],
            "Invalid/unaligned address or invalid range",
        ),
    ] {
        let out = asmdbg_in(dir.path(), args);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            text(&out.stderr)
        );
        assert!(
            text(&out.stderr).contains(says),
            "{args:?}: {}",
            text(&out.stderr)
        );
    }
}

#[test]
fn a_header_with_an_impossible_display_is_named_and_the_run_goes_on() {
    let src = "# Unit width in pixels: 7\n.text\nli $v0, 10\nsyscall\n";
    let dir = Scratch::with_files(&[("odd.asm", src)]);
    let out = asmdbg_in(dir.path(), &["run", "odd.asm"]);
    assert!(out.status.success());
    assert!(
        text(&out.stderr).contains("describes a Bitmap Display asmdbg cannot show (unit width 7"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn mars_memory_ranges_print_after_the_run_as_mars_does() {
    let dir = Scratch::with_files(&[("paint.asm", PAINT)]);
    let out = asmdbg_in(
        dir.path(),
        &[
            "run",
            "paint.asm",
            "0x10008000-0x10008024",
            "0x10008020-0x10008020",
        ],
    );
    assert!(out.status.success());
    let stderr = text(&out.stderr);
    let dump = stderr
        .split_once("states (--bitmap sets another)\n")
        .map_or(stderr.as_str(), |(_, rest)| rest);
    assert_eq!(
        dump,
        "\nMem[0x10008000]\t0x00000000\t0x00ff0000\t0x00000000\t0x00000000\t\n\
         Mem[0x10008010]\t0x00000000\t0x00000000\t0x00000000\t0x00000000\t\n\
         Mem[0x10008020]\t0x0000ff00\t0x00000000\t\n\
         Mem[0x10008020]\t0x0000ff00\t\n"
    );
    // With a step limit MARS still prints them, after its message (li of a 32-bit value is
    // lui and ori: the store is the third instruction).
    let out = asmdbg_in(
        dir.path(),
        &[
            "run",
            "--max-steps",
            "3",
            "paint.asm",
            "0x10008004-0x10008004",
        ],
    );
    assert_eq!(out.status.code(), Some(4));
    assert!(text(&out.stderr).ends_with(
        "\nProgram terminated when maximum step limit 3 reached.\n\nMem[0x10008004]\t0x00ff0000\t\n"
    ), "{}", text(&out.stderr));
}

/// What MARS 4.5 prints for this program, this step limit and range (`java -jar Mars.jar nc
/// me 40 loop.asm 0x10008000-0x1000801c`, run here on MARS 4.5's classes, byte for byte).
#[test]
fn a_step_limited_dump_is_marss_byte_for_byte() {
    let src = "\
.text
main:   li $t0, 0
loop:   addiu $t0, $t0, 1
        sll $t1, $t0, 2
        addu $t1, $t1, $gp
        sw $t0, 0($t1)
        j loop
";
    let dir = Scratch::with_files(&[("loop.asm", src)]);
    let out = asmdbg_in(
        dir.path(),
        &[
            "run",
            "--max-steps",
            "40",
            "loop.asm",
            "0x10008000-0x1000801c",
        ],
    );
    assert_eq!(out.status.code(), Some(4));
    assert_eq!(
        text(&out.stderr),
        "\nProgram terminated when maximum step limit 40 reached.\n\n\
         Mem[0x10008000]\t0x00000000\t0x00000001\t0x00000002\t0x00000003\t\n\
         Mem[0x10008010]\t0x00000004\t0x00000005\t0x00000006\t0x00000007\t\n"
    );
}

#[test]
fn lc3_keys_arrive_at_their_counts_and_pennsim_colours_show() {
    // Waits for a key with GETC, stores it (as a colour) at xC000 and the next key at xC001.
    let src = "\
        .ORIG x3000
        LD R1, VIDEO
        GETC
        STR R0, R1, #0
        GETC
        STR R0, R1, #1
        HALT
VIDEO   .FILL xC000
        .END
";
    let dir = Scratch::with_files(&[("keys.asm", src), ("k", "500 0x7c\n900 0x1f\n")]);
    let out = asmdbg_in(
        dir.path(),
        &[
            "run",
            "keys.asm",
            "--display",
            "--keys",
            "k",
            "--display-png",
            "f.png",
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let (w, h, pixels) = png_pixels(&dir.path().join("f.png"));
    assert_eq!((w, h), (256, 248), "PennSim's 2x2 pixels");
    // 0x7c = 0b11111_00 in the low bits: green 3, blue 28; 0x1f: blue 31.
    assert_eq!(pixels[0], (3 << 11) | (28 << 3));
    assert_eq!(pixels[1], pixels[0]);
    assert_eq!(pixels[2], 31 << 3);
}

/// A program that uses a display or keyboard nothing configured is told, once, which flag
/// would show it (and runs on as before).
#[test]
fn a_device_the_program_uses_but_nothing_configured_is_named_once() {
    let dir = Scratch::with_files(&[
        (
            "gp.asm",
            "main: li $t1, 0x00ff0000\n move $t0, $gp\n li $t2, 1024\nfill: sw $t1, 0($t0)\n addiu $t0, $t0, 4\n addiu $t2, $t2, -1\n bgtz $t2, fill\n li $v0, 10\n syscall\n",
        ),
        (
            "poll.asm",
            "main: lui $s0, 0xffff\n li $t3, 100000\npoll: lw $t0, 0($s0)\n addiu $t3, $t3, -1\n bgtz $t3, poll\n li $v0, 10\n syscall\n",
        ),
        (
            "video.asm",
            ".ORIG x3000\nLD R1, V\nLD R2, C\nLD R3, N\nL STR R2, R1, #0\nADD R1, R1, #1\nADD R3, R3, #-1\nBRp L\nHALT\nV .FILL xC000\nC .FILL x7C00\nN .FILL #100\n.END\n",
        ),
        ("plain.asm", "main: li $t0, 5\n sw $t0, 0($gp)\n li $v0, 10\n syscall\n"),
    ]);
    for (program, says) in [
        ("gp.asm", "asmdbg: the program fills memory from 0x10008000 ($gp) as a MARS Bitmap Display shows it, but no display is configured: run it with --bitmap WIDTHxHEIGHT,unit=N,base=gp"),
        ("poll.asm", "asmdbg: the program uses the Keyboard and Display MMIO words at 0xffff0000, but the device is not connected: run it with --mmio"),
        ("video.asm", "asmdbg: the program draws on PennSim's video display (xC000-xFDFF), but no display is shown: run it with --display"),
    ] {
        let out = asmdbg_in(dir.path(), &["run", program]);
        assert!(out.status.success(), "{program}: {}", text(&out.stderr));
        let stderr = text(&out.stderr);
        assert_eq!(stderr.matches(says).count(), 1, "{program}: {stderr}");
    }
    // A word or two at $gp is a program's data, and a configured device is no news.
    let out = asmdbg_in(dir.path(), &["run", "plain.asm"]);
    assert!(
        !text(&out.stderr).contains("asmdbg:"),
        "{}",
        text(&out.stderr)
    );
    for (program, flag) in [("poll.asm", "--mmio"), ("video.asm", "--display")] {
        let out = asmdbg_in(dir.path(), &["run", program, flag]);
        assert!(
            !text(&out.stderr).contains("asmdbg: the program"),
            "{}",
            text(&out.stderr)
        );
    }
}
