//! Whole programs: the course interpreter's encode probe (output byte for byte), the benchmark
//! loop, and the Tic-Tac-Toe verifier on every hand-made board.

mod common;

use asmdbg_core::{Machine, MachineOptions, StopEvent};
use common::{load, load_with, programs_dir, reg, run};

fn read(path: &std::path::Path) -> String {
    match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => panic!("{}: {e}", path.display()),
    }
}

#[test]
fn encode_probe_output_is_the_interpreters_byte_for_byte() {
    let dir = programs_dir();
    let src = read(&dir.join("encode_probe.asm"));
    let expected = read(&dir.join("encode_probe.out.txt"));
    let mut m = load(&src);
    let (stop, out) = run(&mut m);
    assert_eq!(stop, StopEvent::Halted);
    assert_eq!(out, expected);
    // 30 slots: .encode and .print lines count like instructions (lab is slot 27).
    assert_eq!(m.pc(), 30 * 4);
    assert_eq!(m.instructions_executed(), 30);
    let lab = m.debug_info().and_then(|d| d.symbols.addr("lab"));
    assert_eq!(lab, Some(27 * 4));
}

#[test]
fn bench_loop_computes_its_sum() {
    let src = read(&programs_dir().join("bench.asm"));
    let mut m = load(&src);
    let (stop, out) = run(&mut m);
    assert_eq!(stop, StopEvent::Halted);
    // sum of 0..999_999 = 499_999_500_000, low 32 bits as a signed int.
    let sum = (499_999_500_000u64 as u32) as i32;
    assert_eq!(out, format!("r1 : {sum}\nr2 : 1000000\n"));
    assert_eq!(m.instructions_executed(), 4 + 5 * 1_000_000 + 1);
    assert_eq!(reg(&m, 3), 1_000_000);
}

/// `board NAME => EXPECTED` followed by 36 cells.
fn boards(text: &str) -> Vec<(String, i32, Vec<i32>)> {
    let mut out: Vec<(String, i32, Vec<i32>)> = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(rest) = line.strip_prefix("board ") {
            let (name, expected) = rest.split_once("=>").expect("board line");
            out.push((
                name.trim().to_string(),
                expected.trim().parse().expect("expected value"),
                Vec::new(),
            ));
        } else if let Some(board) = out.last_mut() {
            board.2.extend(
                line.split_whitespace()
                    .map(|c| c.parse::<i32>().expect("cell")),
            );
        }
    }
    out
}

#[test]
fn tictactoe_verifier_gives_every_boards_result() {
    let root = programs_dir().join("../../..");
    let program = root.join("programs/simplerisc/tictactoe.asm");
    let table = root.join("tests/programs/simplerisc/boards.txt");
    let src = read(&program);
    let opts = MachineOptions {
        no_mul: true,
        ..MachineOptions::default()
    };
    let mut m = load_with(&src, &opts);
    let all = boards(&read(&table));
    assert!(all.len() >= 50, "only {} boards", all.len());
    for (name, expected, cells) in all {
        assert_eq!(cells.len(), 36, "{name}");
        m.reset();
        for (i, &c) in cells.iter().enumerate() {
            m.poke_word(1000 + 4 * i as u64, c as u32).expect("poke");
        }
        let (stop, _) = run(&mut m);
        assert_eq!(stop, StopEvent::Halted, "{name}");
        let result = m.peek_word(1144).expect("peek") as i32;
        assert_eq!(result, expected, "board {name}");
        for (i, &c) in cells.iter().enumerate() {
            assert_eq!(
                m.peek_word(1000 + 4 * i as u64).unwrap() as i32,
                c,
                "{name}: input kept"
            );
        }
    }
}
