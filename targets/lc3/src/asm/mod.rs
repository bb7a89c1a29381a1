//! The LC-3 assembler (placeholder until the assembler lands).

use asmdbg_core::{Diagnostic, Diagnostics, SourceFile};

use crate::program::Program;

/// Assembler dialect options.
#[derive(Debug, Clone, Copy, Default)]
pub struct AsmOptions {
    /// lc3as's rules instead of the lenient lc3tools dialect.
    pub strict: bool,
}

/// Assembles one source file, reporting every error.
pub fn assemble(file: &SourceFile, _opts: &AsmOptions) -> Result<Program, Diagnostics> {
    let mut d = Diagnostics::new();
    d.push(Diagnostic::file_error(&file.name, "the LC-3 assembler is not available yet"));
    Err(d)
}
