//! An ISA-neutral ELF32 little-endian writer with DWARF debug information, so gdb-multiarch and
//! VS Code can debug the assembly source: `break game.asm:42`, `print SCORE`, `watch PLAYER`,
//! `bt`, `finish`.
//!
//! Each ISA describes itself through [`ElfIsa`] and hands its program's facts (memory runs,
//! the assembler's [`DebugInfo`](crate::DebugInfo), the entry) to [`build_image`], which finds
//! the functions from the decoder's [`Flow`](crate::Flow) and builds an [`ElfImage`];
//! [`write_elf`] lays that out. The rooms:
//!
//! - [`image`]: sections, symbols, the object file (`object` crate);
//! - [`dwarf`]: line program, compile unit, variables, subprograms, call frame information
//!   (`gimli` crate);
//! - [`analysis`]: function extents, range splits, frames followed along the control flow;
//! - [`build`]: the one build sequence.
//!
//! What gdb needs was measured (gdb 13.1, and gdb's MIPS delay-slot rule):
//!
//! - `.symtab` with every label (`break LABEL`, `<func+off>`, frame names); functions as
//!   `STT_FUNC` with a size;
//! - `.debug_line` (version 3) and a `.debug_info` compile unit with `DW_AT_stmt_list`,
//!   `DW_AT_low_pc`/`DW_AT_high_pc`, name, comp_dir, producer and `DW_AT_language` 0x8001
//!   (MIPS assembler, what gas writes for any assembly);
//! - a `DW_TAG_variable` with a `DW_TAG_base_type` per data label, so `print LABEL` and
//!   `watch LABEL` need no cast;
//! - data in non-executable sections (otherwise data labels become text symbols);
//! - a `DW_TAG_subprogram` per function (gdb's `next` recognises a call by the function
//!   changing), with `DW_AT_ranges` where gdb's delay-slot rule needs split ranges, and
//!   `.debug_frame` so `bt` and `finish` see past functions that save the return address.

pub mod analysis;
pub mod build;
pub mod dwarf;
pub mod image;
pub mod unwind;

pub use analysis::{function_extents, function_spans, propagate_states, split_ranges, Extent};
pub use build::{build_image, helper_script, ElfIsa, ImageFacts, ImageRun, VarType, HELPERS_PY};
pub use dwarf::{
    base_debug, BaseType, CfaOp, ElfDebug, FrameCie, FrameDesc, Function, LineRow, TypeEncoding,
    Variable, DW_LANG_ASSEMBLER,
};
pub use image::{
    write_elf, ElfError, ElfImage, ElfSection, ElfSymbol, ElfSymbolKind, GdbScript, EM_MIPS,
    EM_NONE,
};

/// The crates the writer is built on, for reading the file back (tests, tools) without a
/// dependency of one's own.
pub use {gimli, object};
