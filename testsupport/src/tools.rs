//! "This test needs program X": one rule for every test that runs an external tool
//! (gdb-multiarch, qemu-mipsel, mipsel-linux-gnu-as, python3, prlimit).
//!
//! On a developer's machine a missing tool skips the test with a notice, so the rest of the
//! suite stays usable. Where the tools are meant to be present (`scripts/test` installs them and
//! sets `ASMDBG_REQUIRE_TOOLS=1`, as does `.ci/run` through it), a missing tool fails the test:
//! a suite that silently skipped its gdb sessions would otherwise look green.

use std::path::Path;

/// The environment variable that turns a missing tool into a failure.
pub const REQUIRE_TOOLS_VAR: &str = "ASMDBG_REQUIRE_TOOLS";

/// Whether the environment asks for every tool to be present (`ASMDBG_REQUIRE_TOOLS=1`).
pub fn tools_required() -> bool {
    std::env::var_os(REQUIRE_TOOLS_VAR).is_some_and(|v| v == "1")
}

/// Whether an executable file named `tool` is in one of the `PATH` directories.
pub fn on_path(tool: &str) -> bool {
    let Some(path) = std::env::var_os("PATH") else {
        return false;
    };
    std::env::split_paths(&path).any(|dir| is_executable(&dir.join(tool)))
}

#[cfg(unix)]
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    path.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Windows (the cross-built suite under wine): a program is a file with the `.exe` extension.
#[cfg(windows)]
fn is_executable(path: &Path) -> bool {
    path.with_extension("exe").is_file()
}

/// The decision for a tool that is `found` or not: `Ok(true)` run the test, `Ok(false)` skip it
/// (after a notice on stderr), `Err` the test must fail with this message.
pub fn decide(tool: &str, found: bool, required: bool) -> Result<bool, String> {
    match (found, required) {
        (true, _) => Ok(true),
        (false, true) => Err(format!(
            "{tool} is not installed, and {REQUIRE_TOOLS_VAR}=1 requires it (scripts/test installs it)"
        )),
        (false, false) => {
            eprintln!(
                "SKIPPED: {tool} is not installed (scripts/test installs it; \
                 {REQUIRE_TOOLS_VAR}=1 makes this a failure)"
            );
            Ok(false)
        }
    }
}

/// Whether a test can use `tool`: `if !require_tool("gdb-multiarch") { return; }`. Panics
/// when the tool is missing and `ASMDBG_REQUIRE_TOOLS=1`.
pub fn require_tool(tool: &str) -> bool {
    match decide(tool, on_path(tool), tools_required()) {
        Ok(run) => run,
        Err(message) => panic!("{message}"),
    }
}

/// [`require_tool`] for several tools at once (all must be present to run).
pub fn require_tools(tools: &[&str]) -> bool {
    // Every tool is looked at (no short circuit), so that the notice names each missing one.
    let present: Vec<bool> = tools.iter().map(|tool| require_tool(tool)).collect();
    present.into_iter().all(|p| p)
}

#[cfg(test)]
mod tests {
    use super::*;

    const NO_SUCH_TOOL: &str = "asmdbg-no-such-tool-\u{1F6AB}";

    #[test]
    fn a_missing_tool_skips_unless_required() {
        let found = on_path(NO_SUCH_TOOL);
        assert!(!found);
        assert_eq!(decide(NO_SUCH_TOOL, found, false), Ok(false));
        let failure = decide(NO_SUCH_TOOL, found, true);
        assert!(
            failure
                .as_ref()
                .is_err_and(|m| m.contains(NO_SUCH_TOOL) && m.contains(REQUIRE_TOOLS_VAR)),
            "{failure:?}"
        );
    }

    #[test]
    fn a_present_tool_runs_either_way() {
        // `sh` is on every machine that can run these tests.
        let found = on_path("sh");
        assert!(found);
        assert_eq!(decide("sh", found, false), Ok(true));
        assert_eq!(decide("sh", found, true), Ok(true));
    }
}
