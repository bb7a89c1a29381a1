//! The session model's programs: a fixed one per machine (the regression cases name its
//! counts and addresses), and generated ones with nested calls, recursion and calls through a
//! register (`jalr`, `JSRR`), for the reverse motions by line and out of a frame.

use asmdbg_core::MachineOptions;

use super::Isa;

/// A program as a case runs it.
pub struct Program {
    pub isa: Isa,
    pub file: String,
    pub source: String,
    /// Labels of data words to watch and write.
    pub data: Vec<String>,
    /// Code labels, and how many instructions from each to offer as breakpoints.
    pub code: Vec<(String, u64)>,
    /// Instead: every instruction from the first code label up to this one.
    pub code_end: Option<String>,
    /// gdb byte ranges compared at every stop.
    pub regions: Vec<(u64, u64)>,
    /// And these: a data label and how many words from it.
    pub data_regions: Vec<(String, u64)>,
    /// The machine reads keys.
    pub keys: bool,
    /// Its console reads lines (MARS): a key is typed with Enter.
    pub lines: bool,
}

/// A fixed program each machine runs: it reads keys (where the machine has a console), calls
/// a subroutine that writes, reads and rewrites a watched word, prints, and ends after a few
/// rounds. (The regression cases name its counts and addresses.)
pub struct Fixed {
    pub isa: Isa,
    pub file: &'static str,
    pub source: &'static str,
    /// Labels of data words to watch and write.
    pub data: &'static [&'static str],
    /// Code labels, and how many instructions from each to offer as breakpoints.
    pub code: &'static [(&'static str, u64)],
    /// gdb byte ranges compared at every stop.
    pub regions: &'static [(u64, u64)],
    /// The machine reads keys.
    pub keys: bool,
    /// Its console reads lines (MARS): a key is typed with Enter.
    pub lines: bool,
}

pub const LC3: Fixed = Fixed {
    isa: Isa::Lc3,
    file: "model.asm",
    source: "        .ORIG x3000
MAIN    AND R5, R5, #0
LOOP    GETC
        JSR KEEP
        ADD R5, R5, #1
        LEA R0, MSG
        PUTS
        ADD R1, R5, #-4
        BRn LOOP
        HALT
KEEP    ST R0, LAST
        LD R1, LAST
        ADD R1, R1, #1
        ST R1, COUNT
        LD R2, COUNT
        ADD R2, R2, R1
        ST R2, LAST
        RET
LAST    .FILL 0
COUNT   .FILL 0
MSG     .STRINGZ \"ok\\n\"
        .END
",
    data: &["LAST", "COUNT"],
    code: &[("MAIN", 17)],
    // x3000..x3020 as gdb sees it (two bytes a word), and the OS's stack area.
    regions: &[(0x6000, 0x6040), (0x5ff0, 0x6000)],
    keys: true,
    lines: false,
};

pub const MIPS: Fixed = Fixed {
    isa: Isa::Mips,
    file: "model.asm",
    source: "        .data
last:   .word 0
count:  .word 0
msg:    .asciiz \"ok\\n\"
        .text
main:   li $s0, 0
loop:   li $v0, 12
        syscall
        move $a0, $v0
        jal keep
        addi $s0, $s0, 1
        li $v0, 4
        la $a0, msg
        syscall
        blt $s0, 4, loop
        li $v0, 10
        syscall
keep:   addi $sp, $sp, -4
        sw $ra, 0($sp)
        sw $a0, last
        lw $t1, last
        addi $t1, $t1, 1
        sw $t1, count
        lw $t2, count
        add $t2, $t2, $t1
        sw $t2, last
        lw $ra, 0($sp)
        addi $sp, $sp, 4
        jr $ra
",
    data: &["last", "count"],
    code: &[("main", 31)],
    regions: &[(0x1001_0000, 0x1001_0010), (0x7fff_eff0, 0x7fff_f000)],
    keys: true,
    lines: true,
};

pub const SIMPLERISC: Fixed = Fixed {
    isa: Isa::SimpleRisc,
    file: "model.asm",
    source: ".main:
    mov r5, 0
    mov r6, 3
loop:
    call keep
    add r5, r5, 1
    .print r5
    cmp r6, r5
    bgt loop
    b done
keep:
    sub sp, sp, 4
    st ra, 0[sp]
    ld r1, 100[r0]
    add r1, r1, r5
    st r1, 100[r0]
    ld r2, 104[r0]
    add r2, r2, r1
    st r2, 104[r0]
    ld ra, 0[sp]
    add sp, sp, 4
    ret
done:
    nop
",
    data: &["100", "104"],
    code: &[(".main", 20)],
    regions: &[(96, 112), (4080, 4096)],
    keys: false,
    lines: false,
};

/// The device program: main turns on keyboard interrupts and, for each key the handler
/// counted, calls `keep` and sends a character through the transmitter (polling its ready
/// bit); the handler reads the key (clearing the receiver's ready bit) into `last` and counts
/// it. Keys come on a schedule (the machine's options), so the oracle's fresh machine gets
/// them at the same counts.
pub const MIPS_DEVICES: Fixed = Fixed {
    isa: Isa::MipsDevices,
    file: "devices.asm",
    source: "        .data
last:   .word 0
count:  .word 0
        .text
main:   lui $s1, 0xffff
        li $t0, 2
        sw $t0, 0($s1)
        li $s0, 0
wait:   lw $t0, count
        ble $t0, $s0, wait
        lw $a0, last
        jal keep
        addi $s0, $s0, 1
send:   lw $t0, 8($s1)
        andi $t0, $t0, 1
        beqz $t0, send
        addi $t1, $s0, 96
        sw $t1, 12($s1)
        blt $s0, 3, wait
        li $v0, 10
        syscall
keep:   addi $sp, $sp, -4
        sw $ra, 0($sp)
        addi $t1, $a0, 1
        sw $t1, last
        lw $ra, 0($sp)
        addi $sp, $sp, 4
        jr $ra
        .ktext 0x80000180
        lui $k0, 0xffff
        lw $k1, 4($k0)
        sw $k1, last
        lw $k1, count
        addi $k1, $k1, 1
        sw $k1, count
        eret
",
    data: &["last", "count"],
    code: &[("main", 27)],
    // The data words, the stack's top and the device's four words.
    regions: &[
        (0x1001_0000, 0x1001_0008),
        (0x7fff_eff0, 0x7fff_f000),
        (0xffff_0000, 0xffff_0010),
    ],
    keys: false,
    lines: false,
};

/// The keys of [`MIPS_DEVICES`]: a key every few hundred instructions.
pub fn device_options() -> MachineOptions {
    MachineOptions {
        mmio: true,
        keys: [(40, b'a'), (300, b'b'), (700, b'c'), (1500, b'd')]
            .iter()
            .map(|&(at, key)| asmdbg_core::ScheduledKey { at, key })
            .collect(),
        ..MachineOptions::default()
    }
}

pub fn program(isa: Isa) -> Program {
    let p = match isa {
        Isa::Lc3 => &LC3,
        Isa::Mips => &MIPS,
        Isa::SimpleRisc => &SIMPLERISC,
        Isa::MipsDevices => &MIPS_DEVICES,
    };
    Program {
        isa: p.isa,
        file: p.file.to_string(),
        source: p.source.to_string(),
        data: p.data.iter().map(|d| d.to_string()).collect(),
        code: p.code.iter().map(|&(l, n)| (l.to_string(), n)).collect(),
        code_end: None,
        regions: p.regions.to_vec(),
        data_regions: Vec::new(),
        keys: p.keys,
        lines: p.lines,
    }
}

/// What a generated function does, one line (or a few) at a time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Item {
    Work,
    Load(usize),
    Store(usize),
    /// A call of a later function (no cycles but recursion's own).
    Call(usize),
    /// The same through a register (`jalr`, `JSRR`; SimpleRISC has no such call).
    CallThroughRegister(usize),
    /// A branch over a line.
    Skip,
}

/// The shape of a generated program, from a few bytes (missing ones are zero).
struct Shape {
    rounds: u8,
    /// The recursive function and its depth.
    recursion: Option<(usize, u8)>,
    bodies: Vec<Vec<Item>>,
}

fn shape(bytes: &[u8]) -> Shape {
    let byte = |i: usize| bytes.get(i).copied().unwrap_or(0);
    let functions = 2 + usize::from(byte(0) % 3);
    let rounds = 1 + byte(1) % 2;
    let recursion =
        (byte(2) % 4 != 0).then(|| (usize::from(byte(2)) % functions, 1 + (byte(2) / 4) % 3));
    let mut next = 3 + functions;
    let mut bodies = Vec::new();
    for f in 0..functions {
        let n = 1 + usize::from(byte(3 + f) % 4);
        let later = functions - f - 1;
        let mut body = Vec::new();
        for _ in 0..n {
            let b = byte(next);
            next += 1;
            let which = usize::from(b / 6);
            body.push(match b % 6 {
                0 => Item::Work,
                1 => Item::Load(which % 2),
                2 => Item::Store(which % 2),
                3 if later > 0 => Item::Call(f + 1 + which % later),
                4 if later > 0 => Item::CallThroughRegister(f + 1 + which % later),
                5 => Item::Skip,
                _ => Item::Work,
            });
        }
        bodies.push(body);
    }
    Shape {
        rounds,
        recursion,
        bodies,
    }
}

/// A generated program for `isa` (LC-3, MIPS or SimpleRISC): main reads a key (where the
/// machine has a console), calls the first function and prints, for a round or two; each
/// function saves its return address on the stack and runs lines of work, loads and stores of
/// two watched words, calls of later functions (directly or through a register) and branches
/// over a line; one function may call itself to a depth kept in a word of memory.
pub fn generated(isa: Isa, bytes: &[u8]) -> Program {
    let s = shape(bytes);
    match isa {
        Isa::Lc3 => lc3_program(&s),
        Isa::SimpleRisc => simplerisc_program(&s),
        _ => mips_program(&s),
    }
}

fn mips_program(s: &Shape) -> Program {
    let mut t = String::from("        .data\nw0:     .word 0\nw1:     .word 0\n");
    let depth = s.recursion.map_or(0, |r| r.1);
    t.push_str(&format!(
        "dep:    .word {depth}\nmsg:    .asciiz \"ok\\n\"\n        .text\n"
    ));
    t.push_str(
        "main:   li $s0, 0\nloop:   li $v0, 12\n        syscall\n        jal f0\n        addi $s0, $s0, 1\n        li $v0, 4\n        la $a0, msg\n        syscall\n",
    );
    t.push_str(&format!(
        "        blt $s0, {}, loop\n        li $v0, 10\n        syscall\n",
        s.rounds
    ));
    for (f, body) in s.bodies.iter().enumerate() {
        t.push_str(&format!(
            "f{f}:     addi $sp, $sp, -4\n        sw $ra, 0($sp)\n"
        ));
        if s.recursion.is_some_and(|r| r.0 == f) {
            t.push_str(&format!(
                "        lw $t3, dep\n        addi $t3, $t3, -1\n        sw $t3, dep\n        blez $t3, f{f}_back\n        jal f{f}\nf{f}_back: lw $t3, dep\n        addi $t3, $t3, 1\n        sw $t3, dep\n"
            ));
        }
        for (k, item) in body.iter().enumerate() {
            t.push_str(&match *item {
                Item::Work => "        addi $t0, $t0, 1\n".to_string(),
                Item::Load(w) => format!("        lw $t1, w{w}\n"),
                Item::Store(w) => format!("        sw $t0, w{w}\n"),
                Item::Call(j) => format!("        jal f{j}\n"),
                Item::CallThroughRegister(j) => {
                    format!("        la $t9, f{j}\n        jalr $t9\n")
                }
                Item::Skip => format!(
                    "        bgtz $t0, f{f}_s{k}\n        addi $t0, $t0, -1\nf{f}_s{k}: addi $t2, $t2, 1\n"
                ),
            });
        }
        t.push_str("        lw $ra, 0($sp)\n        addi $sp, $sp, 4\n        jr $ra\n");
    }
    t.push_str("fend:   nop\n");
    Program {
        isa: Isa::Mips,
        file: "generated.asm".to_string(),
        source: t,
        data: vec!["w0".to_string(), "w1".to_string()],
        code: vec![("main".to_string(), 0)],
        code_end: Some("fend".to_string()),
        regions: vec![(0x1001_0000, 0x1001_0010), (0x7fff_efc0, 0x7fff_f000)],
        data_regions: Vec::new(),
        keys: true,
        lines: true,
    }
}

fn lc3_program(s: &Shape) -> Program {
    let mut t = String::from(
        "        .ORIG x3000\nMAIN    LD R6, STACK\n        AND R5, R5, #0\nLOOP    GETC\n        JSR F0\n        ADD R5, R5, #1\n        LEA R0, MSG\n        PUTS\n",
    );
    t.push_str(&format!(
        "        ADD R1, R5, #-{}\n        BRn LOOP\n        HALT\n",
        s.rounds
    ));
    for (f, body) in s.bodies.iter().enumerate() {
        t.push_str(&format!(
            "F{f}      ADD R6, R6, #-1\n        STR R7, R6, #0\n"
        ));
        if s.recursion.is_some_and(|r| r.0 == f) {
            t.push_str(&format!(
                "        LD R3, DEP\n        ADD R3, R3, #-1\n        ST R3, DEP\n        BRnz F{f}B\n        JSR F{f}\nF{f}B     LD R3, DEP\n        ADD R3, R3, #1\n        ST R3, DEP\n"
            ));
        }
        for (k, item) in body.iter().enumerate() {
            t.push_str(&match *item {
                Item::Work => "        ADD R1, R1, #1\n".to_string(),
                Item::Load(w) => format!("        LD R2, W{w}\n"),
                Item::Store(w) => format!("        ST R1, W{w}\n"),
                Item::Call(j) => format!("        JSR F{j}\n"),
                Item::CallThroughRegister(j) => format!("        LEA R4, F{j}\n        JSRR R4\n"),
                Item::Skip => format!(
                    "        ADD R3, R1, #0\n        BRp F{f}S{k}\n        ADD R1, R1, #-1\nF{f}S{k}    ADD R2, R2, #1\n"
                ),
            });
        }
        t.push_str("        LDR R7, R6, #0\n        ADD R6, R6, #1\n        RET\n");
    }
    let depth = s.recursion.map_or(0, |r| r.1);
    t.push_str(&format!(
        "W0      .FILL 0\nW1      .FILL 0\nDEP     .FILL {depth}\nSTACK   .FILL x4000\nMSG     .STRINGZ \"ok\\n\"\n        .END\n"
    ));
    Program {
        isa: Isa::Lc3,
        file: "generated.asm".to_string(),
        source: t,
        data: vec!["W0".to_string(), "W1".to_string()],
        code: vec![("MAIN".to_string(), 0)],
        code_end: Some("W0".to_string()),
        // The stack's top words (gdb's view: two bytes a word).
        regions: vec![(0x7fe0, 0x8000)],
        data_regions: vec![("W0".to_string(), 6)],
        keys: true,
        lines: false,
    }
}

fn simplerisc_program(s: &Shape) -> Program {
    let depth = s.recursion.map_or(0, |r| r.1);
    let mut t = format!(".main:\n    mov r5, 0\n    mov r3, {depth}\n    st r3, 108[r0]\nloop:\n    call f0\n    add r5, r5, 1\n    .print r5\n");
    t.push_str(&format!(
        "    mov r6, {}\n    cmp r6, r5\n    bgt loop\n    b done\n",
        s.rounds
    ));
    for (f, body) in s.bodies.iter().enumerate() {
        t.push_str(&format!("f{f}:\n    sub sp, sp, 4\n    st ra, 0[sp]\n"));
        if s.recursion.is_some_and(|r| r.0 == f) {
            t.push_str(&format!(
                "    ld r3, 108[r0]\n    sub r3, r3, 1\n    st r3, 108[r0]\n    cmp r3, r0\n    bgt f{f}rec\n    b f{f}back\nf{f}rec:\n    call f{f}\nf{f}back:\n    ld r3, 108[r0]\n    add r3, r3, 1\n    st r3, 108[r0]\n"
            ));
        }
        for (k, item) in body.iter().enumerate() {
            t.push_str(&match *item {
                Item::Work => "    add r1, r1, 1\n".to_string(),
                Item::Load(w) => format!("    ld r2, {}[r0]\n", 100 + 4 * w),
                Item::Store(w) => format!("    st r1, {}[r0]\n", 100 + 4 * w),
                Item::Call(j) | Item::CallThroughRegister(j) => format!("    call f{j}\n"),
                Item::Skip => format!(
                    "    cmp r1, r0\n    bgt f{f}s{k}\n    sub r1, r1, 1\nf{f}s{k}:\n    add r2, r2, 1\n"
                ),
            });
        }
        t.push_str("    ld ra, 0[sp]\n    add sp, sp, 4\n    ret\n");
    }
    t.push_str("done:\n    nop\n");
    Program {
        isa: Isa::SimpleRisc,
        file: "generated.asm".to_string(),
        source: t,
        data: vec!["100".to_string(), "104".to_string()],
        code: vec![(".main".to_string(), 0)],
        code_end: Some("done".to_string()),
        regions: vec![(96, 112), (4032, 4096)],
        data_regions: Vec::new(),
        keys: false,
        lines: false,
    }
}
