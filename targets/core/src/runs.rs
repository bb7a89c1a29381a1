//! Where the straight-line runs of a cpu's decoded code end, for run loops that execute a run
//! of instructions one after another with no fetch or budget test each (MIPS, SimpleRISC).
//!
//! A run starts at whatever slot execution enters and ends at the first instruction that may
//! move the PC elsewhere (the cpu says which) or after [`MAX_RUN`] instructions. The ends are
//! found when a run is first entered and kept until the code changes: the cpu passes the
//! version of its code (see [`crate::PatchedCode::version`]) and everything is forgotten when
//! it differs.

/// Most instructions in one run.
pub const MAX_RUN: usize = 64;

/// `StraightRuns::last` of a slot no run started at yet.
const UNKNOWN: u32 = u32::MAX;

/// For each slot a run started at, the slot of the run's last instruction.
#[derive(Debug, Clone, Default)]
pub struct StraightRuns {
    last: Vec<u32>,
    /// The version of the code `last` was derived from.
    version: u64,
}

impl StraightRuns {
    /// Forgets every run if the code (`len` slots) is not the version they were found in.
    pub fn sync(&mut self, len: usize, version: u64) {
        if self.version != version || self.last.len() != len {
            self.version = version;
            self.last.clear();
            self.last.resize(len, UNKNOWN);
        }
    }

    /// The slot of the last instruction of the run starting at `slot` (which must be less
    /// than `code.len()`); `ends_run` says whether an instruction may move the PC elsewhere.
    #[inline(always)]
    pub fn last_of<I: Copy>(&mut self, slot: usize, code: &[I], ends_run: fn(I) -> bool) -> usize {
        match self.last[slot] {
            UNKNOWN => {
                let last = find_last(slot, code, ends_run);
                self.last[slot] = last as u32;
                last
            }
            last => last as usize,
        }
    }
}

#[cold]
fn find_last<I: Copy>(slot: usize, code: &[I], ends_run: fn(I) -> bool) -> usize {
    let limit = code.len().min(slot + MAX_RUN) - 1;
    (slot..limit).find(|&k| ends_run(code[k])).unwrap_or(limit)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Code of numbers where 0 ends a run.
    fn ends(n: u8) -> bool {
        n == 0
    }

    #[test]
    fn a_run_ends_at_the_first_transfer_the_code_end_or_the_cap() {
        let code = [1u8, 1, 0, 1, 1];
        let mut runs = StraightRuns::default();
        runs.sync(code.len(), 1);
        assert_eq!(runs.last_of(0, &code, ends), 2);
        assert_eq!(runs.last_of(2, &code, ends), 2);
        assert_eq!(runs.last_of(3, &code, ends), 4);
        let long = vec![1u8; 200];
        runs.sync(long.len(), 1);
        assert_eq!(runs.last_of(10, &long, ends), 10 + MAX_RUN - 1);
    }

    #[test]
    fn a_new_version_of_the_code_forgets_the_runs() {
        let mut code = [1u8, 1, 1];
        let mut runs = StraightRuns::default();
        runs.sync(code.len(), 1);
        assert_eq!(runs.last_of(0, &code, ends), 2);
        code[1] = 0;
        runs.sync(code.len(), 1);
        assert_eq!(runs.last_of(0, &code, ends), 2, "same version: kept");
        runs.sync(code.len(), 2);
        assert_eq!(runs.last_of(0, &code, ends), 1);
    }
}
