//! Every line of tests/data/java17-float-vectors.txt: what JDK 17's `Double.toString` and
//! `Float.toString` (which MARS 4.5 prints floats with) give for 100,000 random doubles,
//! 100,000 random floats and the edge cases (subnormals, powers of ten and two with their
//! neighbours, floats at and above 2^63). The file comes from
//! scripts/gen-java-float-vectors.java run on OpenJDK 17.0.15; this test needs no Java.

use asmdbg_mips::javafmt::{double_to_string, float_to_string};

fn vectors() -> String {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/java17-float-vectors.txt"
    );
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The lines whose text differs from ours, as `bits: ours != jdk`.
fn mismatches(text: &str) -> (usize, usize, Vec<String>) {
    let (mut doubles, mut floats) = (0, 0);
    let mut wrong = Vec::new();
    for line in text.lines() {
        let (hex, jdk) = line
            .split_once(' ')
            .unwrap_or_else(|| panic!("bad line {line:?}"));
        let ours = match hex.len() {
            16 => {
                doubles += 1;
                double_to_string(f64::from_bits(u64::from_str_radix(hex, 16).unwrap()))
            }
            8 => {
                floats += 1;
                float_to_string(f32::from_bits(u32::from_str_radix(hex, 16).unwrap()))
            }
            _ => panic!("bad bits in {line:?}"),
        };
        if ours != jdk {
            wrong.push(format!("{hex}: {ours} != {jdk}"));
        }
    }
    (doubles, floats, wrong)
}

#[test]
fn every_vector_prints_like_jdk17() {
    let (doubles, floats, wrong) = mismatches(&vectors());
    assert!(
        doubles >= 100_000 && floats >= 100_000,
        "{doubles} {floats}"
    );
    assert!(
        wrong.is_empty(),
        "{} of {} differ, first ones:\n{}",
        wrong.len(),
        doubles + floats,
        wrong[..wrong.len().min(40)].join("\n")
    );
}
