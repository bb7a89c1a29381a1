//! The whole state of a machine as a value: what time travel (restore an earlier point, replay
//! forward) and the snapshot/replay tests need.
//!
//! A state holds what the guest program can observe or change: registers, memory (including
//! code the debugger patched), devices, queued console input and the console's flags, random
//! generators, open files as numbers. It leaves out what belongs to the debugging session or to
//! the host: breakpoints and watchpoints (and the cpus' caches derived from them), output the
//! host already took, real file handles, wake-up times of real sleeps. Restoring keeps the
//! session's breakpoints and watchpoints and re-derives every cache from the restored state.
//!
//! Limits: a state is a full copy (MIPS: its 12 MiB of data segments), meant for a few
//! snapshots, not one per instruction.

use std::fmt::Debug;

/// A machine whose complete architectural and device state can be copied out and put back.
///
/// Kept apart from [`crate::Machine`] so that trait stays object safe (`Box<dyn Machine>`).
pub trait Snapshot {
    type State: Clone + PartialEq + Debug + Send + 'static;

    /// A copy of the current state.
    fn snapshot(&self) -> Self::State;

    /// Puts `state` back: afterwards the machine behaves exactly as when `state` was taken,
    /// with the debugger's current breakpoints and watchpoints.
    fn restore(&mut self, state: &Self::State);

    /// About how many bytes `state` takes (time travel caps its checkpoints by it).
    fn state_bytes(&self, _state: &Self::State) -> usize {
        std::mem::size_of::<Self::State>()
    }

    /// About how many bytes taking a snapshot reads (time travel spaces its checkpoints so
    /// that taking them costs little next to running).
    fn snapshot_cost_bytes(&self) -> usize {
        std::mem::size_of::<Self::State>()
    }
}
