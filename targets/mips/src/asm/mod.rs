//! The MARS-dialect assembler (placeholder until the assembler lands).

use std::path::PathBuf;

use asmdbg_core::{Diagnostic, Diagnostics, SourceFile};

use crate::program::Program;

#[derive(Debug, Clone, Default)]
pub struct AsmOptions {
    /// Directory `.include` paths are resolved against (MARS: the working directory).
    pub work_dir: Option<PathBuf>,
}

/// Assembles one source file (and its `.include`s), reporting every error.
pub fn assemble(file: &SourceFile, _opts: &AsmOptions) -> Result<Program, Diagnostics> {
    let mut d = Diagnostics::new();
    d.push(Diagnostic::file_error(&file.name, "the MIPS assembler is not available yet"));
    Err(d)
}
