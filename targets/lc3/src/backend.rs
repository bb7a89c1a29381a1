//! LC-3's [`Backend`]: programs are assembly or object files (.obj, classic or lc3tools),
//! `asmdbg asm` writes `.obj` + `.sym` as lc3as does (or an ELF when asked for `.elf`), and the
//! console passes keys one by one (the guest echoes what it wants echoed).

use std::path::{Path, PathBuf};

use asmdbg_core::backend::{elf_path, Artifact, ArtifactError, Backend, BenchTraps};
use asmdbg_core::elf::{write_elf, ElfError, ElfImage};
use asmdbg_core::isa::Dialect;
use asmdbg_core::{Flag, Isa, IsaInfo, LoadError, MachineOptions, ProgramSource};

use crate::machine::{is_object_file, load_machine, load_machine_files, Lc3Machine};

/// The LC-3 backend.
pub struct Lc3Backend;

/// The ELF of the program and of the OS of the machine's profile (see [`os_source_copy`]).
fn machine_image(machine: &Lc3Machine) -> ElfImage {
    let profile = machine.profile();
    let Some(image) = machine.builtin_os() else {
        // The program brought its own OS (its first file).
        return crate::elf::elf_image(machine.program(), None);
    };
    let path = os_source_copy(profile.name, image);
    let source_path = path.display().to_string();
    crate::elf::elf_image(
        machine.program(),
        Some(crate::elf::OsPart {
            image,
            source_path: &source_path,
            trap_through_stack: profile.semantics.trap_through_stack,
        }),
    )
}

/// A copy of the profile's OS source for gdb to show when it steps into a trap routine: the
/// source is built into asmdbg, and gdb lists lines only from files. It goes to the user's
/// cache directory (`$XDG_CACHE_HOME` or `~/.cache`, else the temporary directory) as
/// `asmdbg/lc3-os-PROFILE.asm`, rewritten only when it differs. If it cannot be written the
/// ELF still names it: gdb then shows the routine's line numbers without their text.
pub fn os_source_copy(profile: &str, image: &crate::os::OsImage) -> PathBuf {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    let path = base.join("asmdbg").join(format!("lc3-os-{profile}.asm"));
    let text = image
        .debug
        .sources
        .files()
        .first()
        .map(|f| f.text.to_string())
        .unwrap_or_default();
    if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
        let written = path
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| std::fs::write(&path, &text));
        if let Err(e) = written {
            log::warn!(
                "cannot write the OS source for gdb to {}: {e}",
                path.display()
            );
        }
    }
    path
}

/// `SOURCE.obj` (or `output`) and the `.sym` beside it, as lc3as writes them.
fn obj_and_sym(
    program: &crate::program::Program,
    path: &str,
    output: Option<&Path>,
) -> Result<Vec<Artifact>, ArtifactError> {
    let target = output
        .map(Path::to_path_buf)
        .unwrap_or_else(|| Path::new(path).with_extension("obj"));
    let obj = crate::objfile::write_obj(program).map_err(|e| ArtifactError::Object {
        path: path.to_string(),
        source: Box::new(e),
    })?;
    let sym_path = target.with_extension("sym");
    Ok(vec![
        Artifact {
            path: target,
            bytes: obj,
        },
        Artifact {
            path: sym_path,
            bytes: crate::objfile::write_sym(program).into_bytes(),
        },
    ])
}

/// LC-3's identity: `--isa lc3`, its notation, and the flags its programs accept.
pub const ISA: Isa = Isa::new(&IsaInfo {
    name: "lc3",
    aliases: &["lc-3"],
    title: "LC-3",
    summary: "LC-3",
    format_addr: |addr| format!("x{addr:04X}"),
    flags: &[
        Flag::Profile,
        Flag::Strict,
        Flag::IgnorePrivilege,
        Flag::Entry,
        Flag::Video,
        Flag::Keys,
    ],
});

/// The value the command line registers (src/backends.rs).
pub static BACKEND: Lc3Backend = Lc3Backend;

impl Backend for Lc3Backend {
    type Machine = Lc3Machine;

    fn isa(&self) -> Isa {
        ISA
    }

    fn dialect(&self) -> Dialect {
        Dialect {
            isa: ISA,
            comments: &[";"],
            // Every LC-3 program has `.ORIG`.
            marks: |line, _| line.contains(".orig"),
            operation: crate::asm::is_operation,
        }
    }

    fn is_object_file(&self, bytes: &[u8]) -> bool {
        is_object_file(bytes)
    }

    fn load(
        &self,
        path: &str,
        bytes: &[u8],
        opts: &MachineOptions,
    ) -> Result<Lc3Machine, LoadError> {
        load_machine(path, bytes, opts)
    }

    fn load_files(
        &self,
        files: &[ProgramSource],
        opts: &MachineOptions,
    ) -> Result<Lc3Machine, LoadError> {
        load_machine_files(files, opts)
    }

    fn warnings(&self, machine: &Lc3Machine) -> String {
        machine.program().warnings.to_string()
    }

    fn artifacts(
        &self,
        machine: &Lc3Machine,
        files: &[ProgramSource],
        output: Option<&Path>,
        opts: &MachineOptions,
    ) -> Result<Vec<Artifact>, ArtifactError> {
        let first = files.first().map_or("program", |f| f.path.as_str());
        if output.is_some_and(|o| o.extension().is_some_and(|e| e == "elf")) {
            return Ok(vec![Artifact {
                path: elf_path(Path::new(first), output),
                bytes: write_elf(&machine_image(machine))?,
            }]);
        }
        match files {
            [file] => obj_and_sym(machine.program(), &file.path, output),
            _ if output.is_some() => Err(ArtifactError::Usage(
                "-o names one file: with several LC-3 sources each gets its .obj and .sym beside it (as lc3as writes them), or -o PROGRAM.elf gets one ELF of them all".to_string(),
            )),
            _ => {
                // As lc3as: one object file per source, each assembled alone (the machine
                // assembled them the same way); object files given are already objects.
                let mut artifacts = Vec::new();
                for file in files.iter().filter(|f| !is_object_file(&f.bytes)) {
                    let one = load_machine_files(std::slice::from_ref(file), opts)
                        .map_err(|e| ArtifactError::Usage(e.to_string()))?;
                    artifacts.extend(obj_and_sym(one.program(), &file.path, None)?);
                }
                Ok(artifacts)
            }
        }
    }

    fn image(&self, machine: &Lc3Machine, _opts: &MachineOptions) -> Result<ElfImage, ElfError> {
        Ok(machine_image(machine))
    }

    fn cooked_console(&self) -> bool {
        false
    }

    fn bench_traps(&self) -> BenchTraps {
        BenchTraps {
            code: 0xB000,
            code_step: 1,
            data: 0xC000,
            data_step: 0x100,
            data_len: 1,
        }
    }
}
