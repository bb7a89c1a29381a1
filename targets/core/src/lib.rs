//! What every asmdbg machine shares: the [`Machine`] trait and its stop events, breakpoint and
//! watchpoint sets, the console buffers, the host boundary (record and replay of
//! what comes in) and machine snapshots, symbols and source lines, and assembler diagnostics.
//!
//! Nothing here knows about gdb, tokio or terminals: a cpu built on this crate is a plain struct
//! that the command line runs directly and the debugger drives in bounded bursts.

pub mod backend;
pub mod breakpoints;
pub mod checks;
pub mod clock;
pub mod code_memory;
pub mod console;
pub mod contract;
pub mod debug_cache;
pub mod diag;
pub mod display;
pub mod elf;
pub mod event;
pub mod flow;
pub mod gdb;
pub mod history;
pub mod host;
pub mod isa;
pub mod machine;
pub mod options;
pub mod pace;
pub mod rate;
pub mod slips;
pub mod snapshot;
pub mod sources;
pub mod symbols;
pub mod word_bytes;
pub mod x64;

pub use backend::{Artifact, ArtifactError, Backend, BenchTraps, ProgramSource};
pub use breakpoints::{BreakpointSet, WatchpointSet};
pub use checks::{
    AskGate, CheckKind, CheckSet, Checker, Conventions, Effects, Finding, InstructionGate,
    MemAccess, RunAccess, Unasked,
};
pub use console::Console;
pub use debug_cache::{
    straight_run_ends, BreakpointBitmap, BreakpointCache, DebugCache, PatchedCode, WatchFilter,
};
pub use diag::{Diagnostic, Diagnostics, FileId, Severity, SourceFile, SourceMap, Span};
pub use display::{BitmapConfig, Frame, KeyFeed, KeyedMachine, ScheduledKey};
pub use event::{AccessKind, Fault, FaultKind, RunOutcome, StopEvent, WatchKind};
pub use flow::Flow;
pub use host::{HostInput, InputLog, Journal};
pub use isa::{Isa, IsaInfo};
pub use machine::{resolve_address, LoadError, Machine, MemError, RegisterInfo, RegisterScope};
pub use options::{Flag, MachineOptions};
pub use pace::Pace;
pub use snapshot::Snapshot;
pub use sources::{check_text, SourceAccess, SourceError, SourceLimits};
pub use symbols::{
    DataDirective, DataItem, DataTable, DebugInfo, LineTable, SourceLoc, Symbol, SymbolKind,
    SymbolTable,
};
