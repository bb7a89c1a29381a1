//! programs/mips/four_in_a_row.asm (an 800-line student-style game) played on the machine
//! directly: every scripted game in tests/programs/mips must print its transcript byte for byte
//! and end normally. The same games also run through the `asmdbg` binary in the workspace tests;
//! this copy pins the machine itself (and runs each game with delay slots off and a breakpoint
//! and watchpoint set that never fire, which must not change anything).

use std::path::{Path, PathBuf};

use asmdbg_core::{Machine, MachineOptions, StopEvent, WatchKind};
use asmdbg_mips::load_machine;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn play(src: &str, input: &[u8], traps: bool) -> (Option<StopEvent>, String) {
    let mut m = load_machine("four_in_a_row.asm", src, &MachineOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    if traps {
        m.breakpoints().insert(0x0040_fff0);
        m.watchpoints().insert(0x1003_0000, 4, WatchKind::Access);
    }
    m.console().push_input(input);
    m.console().close_input();
    let mut out = Vec::new();
    let stop = loop {
        let outcome = m.run(1 << 20);
        out.extend(m.console().take_output());
        match outcome.stop {
            None => continue,
            stop => break stop,
        }
    };
    (stop, String::from_utf8_lossy(&out).into_owned())
}

#[test]
fn scripted_games_match_their_transcripts() {
    let program = workspace().join("programs/mips/four_in_a_row.asm");
    let src =
        std::fs::read_to_string(&program).unwrap_or_else(|e| panic!("{}: {e}", program.display()));
    let dir = workspace().join("tests/programs/mips");
    let mut games: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|entries| entries.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    games.retain(|p| p.extension().is_some_and(|e| e == "in"));
    games.sort();
    assert!(!games.is_empty(), "no games in {}", dir.display());
    for game in games {
        let input = std::fs::read(&game).unwrap_or_default();
        let want = std::fs::read_to_string(game.with_extension("out")).unwrap_or_default();
        for traps in [false, true] {
            let (stop, got) = play(&src, &input, traps);
            assert_eq!(stop, Some(StopEvent::Exited(0)), "{}", game.display());
            assert!(got == want, "{} differs (traps {traps})", game.display());
        }
    }
}
