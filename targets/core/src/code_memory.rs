//! Memory that holds machine code a cpu compiled (its runs or blocks). The code generators
//! live with their cpus and write with [`x64!`](macro@crate::x64); this is where their code
//! goes.
//!
//! One executable buffer of dynasmrt's per cpu, readable and executable, made writable only
//! while code is copied in (never writable and executable at once). Only 64-bit x86 Unix hosts
//! get one: elsewhere [`CodeMemory::new`] fails and the cpus interpret.

/// Whether this host can run the code the cpus compile (x86-64).
pub const COMPILED_CODE: bool = cfg!(all(target_arch = "x86_64", unix));

/// `--interpret` / `ASMDBG_INTERPRET=1`: every cpu interprets, as on hosts without compiled
/// code (0 not decided yet, 1 compile, 2 interpret).
static INTERPRET: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(0);

/// Turns compiled code off (or back on) for every cpu of the process from now on; code
/// already compiled keeps running.
pub fn set_interpret(on: bool) {
    INTERPRET.store(if on { 2 } else { 1 }, std::sync::atomic::Ordering::Relaxed);
}

/// Whether the cpus interpret: [`set_interpret`], or else `ASMDBG_INTERPRET` set to anything
/// but `0` or nothing.
pub fn interpreting() -> bool {
    use std::sync::atomic::Ordering;
    match INTERPRET.load(Ordering::Relaxed) {
        1 => false,
        2 => true,
        _ => {
            let on =
                std::env::var_os("ASMDBG_INTERPRET").is_some_and(|v| !v.is_empty() && v != "0");
            set_interpret(on);
            on
        }
    }
}

/// What a compiled run or block returns (in rax:rdx under the SysV ABI): the rounds it
/// completed, and the PC after the last round, or with [`LEFT_EARLY`] set the index of the
/// instruction it left before finishing (its round's instructions before it completed).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CompiledOutcome {
    pub rounds: u64,
    pub next: u64,
}

/// A compiled run or block: `state` is what the code reads and writes (a cpu's registers, or
/// a context of its own), `max_rounds` at least 1.
#[cfg(target_arch = "x86_64")]
pub type CompiledFn<S> =
    unsafe extern "sysv64" fn(state: *mut S, max_rounds: u64) -> CompiledOutcome;
#[cfg(not(target_arch = "x86_64"))]
pub type CompiledFn<S> = unsafe extern "C" fn(state: *mut S, max_rounds: u64) -> CompiledOutcome;

/// Copies `from` into `to` one element at a time. Compiled code wrote them with stores as
/// narrow as one element; a wide load of several cannot be forwarded from those stores and
/// waits for them to reach the cache (a third of the time of LC-3 game code in short blocks
/// went there when the registers were copied as one 16-byte value).
#[inline(always)]
pub fn copy_one_by_one<T: Copy>(from: &[T], to: &mut [T]) {
    for (to, from) in to.iter_mut().zip(from) {
        // SAFETY: a read of an initialized value through a reference; volatile only so that
        // the reads are not merged into wide loads.
        *to = unsafe { std::ptr::read_volatile(from) };
    }
}

/// The bit of [`CompiledOutcome::next`] that marks an instruction the code left early at.
pub const LEFT_EARLY: u64 = 1 << 32;

/// Code compiles on the entry after this many: the first entries of most code are its only
/// ones (start-up, a debugger's single steps, code the debugger just changed), and compiling
/// costs two system calls besides the code generation.
pub const ENTRIES_BEFORE_COMPILING: u32 = 4;

/// An entry of [`CompiledCode`]: how often the key was asked for while below
/// [`ENTRIES_BEFORE_COMPILING`]; then not compilable, or compiled at an offset.
const NOT_COMPILED: u32 = u32::MAX;
const COMPILED: u32 = 1 << 31;

/// A cpu's compiled code, by a key of its choosing (the slot or block it was compiled for),
/// compiled once it is entered often enough. A copy starts with nothing compiled (code memory
/// is not shared between cpus) but keeps [`CompiledCode::set_off`].
#[derive(Default)]
pub struct CompiledCode {
    entries: Vec<u32>,
    memory: Option<CodeMemory>,
    /// Whether mapping code memory failed once (then nothing is compiled again).
    unavailable: bool,
    /// [`CompiledCode::set_off`]: this cpu interprets whatever the process-wide switch says.
    off: bool,
}

impl std::fmt::Debug for CompiledCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let compiled = self
            .entries
            .iter()
            .filter(|&&e| e != NOT_COMPILED && e & COMPILED != 0)
            .count();
        write!(f, "CompiledCode {{ {compiled} compiled }}")
    }
}

impl Clone for CompiledCode {
    fn clone(&self) -> CompiledCode {
        CompiledCode {
            off: self.off,
            ..CompiledCode::default()
        }
    }
}

impl CompiledCode {
    /// Forgets everything compiled (what it was compiled from changed).
    pub fn clear(&mut self) {
        self.entries.clear();
        // The code goes with its buffer (dynasmrt's only grows): a new one is mapped when
        // something compiles again.
        self.memory = None;
    }

    /// Turns compiled code off for this cpu alone (one machine of a differential test), or
    /// back on (still subject to [`interpreting`]); forgets what was compiled either way.
    pub fn set_off(&mut self, off: bool) {
        self.off = off;
        self.clear();
    }

    /// The address of the code for `key`, compiled from `emit` on the entry after
    /// [`ENTRIES_BEFORE_COMPILING`] (None: not yet, it does not compile, or this host cannot
    /// run compiled code).
    #[inline(always)]
    pub fn get(&mut self, key: usize, emit: impl FnOnce() -> Option<Vec<u8>>) -> Option<*const u8> {
        match self.entries.get(key) {
            Some(&NOT_COMPILED) => None,
            Some(&entry) if entry & COMPILED != 0 => {
                Some(self.memory.as_ref()?.entry((entry & !COMPILED) as usize))
            }
            _ => self.enter(key, emit),
        }
    }

    /// [`CompiledCode::get`] as the function it is.
    ///
    /// # Safety
    /// `emit` must write whole functions of [`CompiledFn<S>`]'s calling convention, and every
    /// earlier `emit` for this key since the last [`CompiledCode::clear`] too.
    #[inline(always)]
    pub unsafe fn function<S>(
        &mut self,
        key: usize,
        emit: impl FnOnce() -> Option<Vec<u8>>,
    ) -> Option<CompiledFn<S>> {
        let address = self.get(key, emit)?;
        // SAFETY: by the caller, a whole function of this type starts at `address`.
        Some(unsafe { std::mem::transmute::<*const u8, CompiledFn<S>>(address) })
    }

    #[cold]
    #[inline(never)]
    fn enter(&mut self, key: usize, emit: impl FnOnce() -> Option<Vec<u8>>) -> Option<*const u8> {
        if key >= self.entries.len() {
            self.entries.resize(key + 1, 0);
        }
        if self.entries[key] < ENTRIES_BEFORE_COMPILING {
            self.entries[key] += 1;
            return None;
        }
        let offset = self.compile(emit);
        self.entries[key] = offset.map_or(NOT_COMPILED, |offset| offset as u32 | COMPILED);
        Some(self.memory.as_ref()?.entry(offset?))
    }

    fn compile(&mut self, emit: impl FnOnce() -> Option<Vec<u8>>) -> Option<usize> {
        if self.off || self.unavailable || !COMPILED_CODE || interpreting() {
            return None;
        }
        let code = emit()?;
        if self.memory.is_none() {
            match CodeMemory::new() {
                Ok(memory) => self.memory = Some(memory),
                Err(error) => {
                    log::warn!("compiled code is off: no code memory ({error})");
                    self.unavailable = true;
                    return None;
                }
            }
        }
        self.memory.as_mut()?.add(&code)
    }
}

#[cfg(all(target_arch = "x86_64", unix))]
mod mapping {
    use dynasmrt::DynasmApi;

    /// Room for some 200,000 compiled instructions (address space only until written); what
    /// does not fit stays interpreted. Mapped whole at once, so that the buffer never moves
    /// (dynasmrt moves it to grow it) and code keeps its address until the memory is dropped.
    const SIZE: usize = 4 << 20;

    /// Three words, as the hand-made mapping was: the cpus move their compiled code in and
    /// out of themselves around every run (MIPS's `mem::take` of its runs), and the
    /// assembler's own state is some 300 bytes.
    pub struct CodeMemory {
        assembler: Box<dynasmrt::x64::Assembler>,
        /// Where the buffer starts.
        base: usize,
        used: usize,
    }

    impl CodeMemory {
        pub fn new() -> std::io::Result<CodeMemory> {
            let assembler = Box::new(dynasmrt::x64::Assembler::new_with_capacity(SIZE)?);
            let base = assembler.reader().lock().as_ptr() as usize;
            Ok(CodeMemory {
                assembler,
                base,
                used: 0,
            })
        }

        /// Copies `code` in at a 16-byte boundary; its offset, or None when full.
        pub fn add(&mut self, code: &[u8]) -> Option<usize> {
            let offset = self.used.next_multiple_of(16);
            let end = offset + code.len();
            if end > SIZE {
                return None;
            }
            // int3 between functions: never run.
            self.assembler.align(16, 0xCC);
            debug_assert_eq!(self.assembler.offset().0, offset);
            self.assembler.extend(code);
            // The code has no relocations of the buffer's: committing only copies it in,
            // between two protection changes.
            self.assembler.commit().ok()?;
            debug_assert_eq!(
                self.assembler.reader().lock().as_ptr() as usize,
                self.base,
                "the buffer moved"
            );
            self.used = end;
            Some(offset)
        }

        /// The address of the code at `offset`, which `add` returned.
        pub fn entry(&self, offset: usize) -> *const u8 {
            assert!(offset < self.used, "code offset {offset} was never written");
            (self.base + offset) as *const u8
        }
    }
}

#[cfg(not(all(target_arch = "x86_64", unix)))]
mod mapping {
    /// No code memory on this host: it cannot be made.
    pub enum CodeMemory {}

    impl CodeMemory {
        pub fn new() -> std::io::Result<CodeMemory> {
            Err(std::io::Error::other(
                "compiled code needs an x86-64 Unix host",
            ))
        }
        pub fn add(&mut self, _: &[u8]) -> Option<usize> {
            match *self {}
        }
        pub fn entry(&self, _: usize) -> *const u8 {
            match *self {}
        }
    }
}

pub use mapping::CodeMemory;

impl std::fmt::Debug for CodeMemory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CodeMemory")
    }
}

#[cfg(all(test, target_arch = "x86_64", unix))]
mod tests {
    use super::*;

    #[test]
    fn code_added_runs_at_16_byte_boundaries() {
        let mut memory = CodeMemory::new().unwrap();
        let mut ops = crate::x64::ops();
        crate::x64!(ops; mov eax, 42; ret);
        let first = memory.add(&crate::x64::finish(ops)).unwrap();
        let mut ops = crate::x64::ops();
        crate::x64!(ops; lea eax, [rdi + 1]; ret);
        let second = memory.add(&crate::x64::finish(ops)).unwrap();
        assert_eq!((first, second), (0, 16));
        // SAFETY: both are whole functions of the sysv64 ABI written above, in `memory`,
        // which lives until after the calls.
        let (f, g) = unsafe {
            (
                std::mem::transmute::<*const u8, extern "sysv64" fn() -> u32>(memory.entry(first)),
                std::mem::transmute::<*const u8, extern "sysv64" fn(u32) -> u32>(
                    memory.entry(second),
                ),
            )
        };
        assert_eq!((f(), g(7)), (42, 8));
        assert_eq!(memory.add(&[0; 4 << 20]), None, "past the room there is");
        assert_eq!(std::mem::size_of::<CodeMemory>(), 24, "moved with its cpu");
    }

    #[test]
    fn code_compiles_once_per_key_until_cleared_and_not_in_a_copy() {
        // These test the compiling itself: on even when the run asks to interpret.
        set_interpret(false);
        let mut compiled = CompiledCode::default();
        let mut emitted = 0;
        let mut emit = || {
            emitted += 1;
            let mut ops = crate::x64::ops();
            crate::x64!(ops; ret);
            Some(crate::x64::finish(ops))
        };
        for _ in 0..ENTRIES_BEFORE_COMPILING {
            assert_eq!(
                compiled.get(3, &mut emit),
                None,
                "not entered often enough yet"
            );
            assert_eq!(compiled.get(1, || None), None);
        }
        let first = compiled.get(3, &mut emit);
        assert!(first.is_some());
        assert_eq!(compiled.get(3, &mut emit), first);
        assert_eq!(compiled.get(1, || None), None);
        assert_eq!(compiled.get(1, &mut emit), None, "not compilable stays so");
        assert_eq!(format!("{compiled:?}"), "CompiledCode { 1 compiled }");
        assert_eq!(
            format!("{:?}", compiled.clone()),
            "CompiledCode { 0 compiled }"
        );
        compiled.clear();
        for _ in 0..ENTRIES_BEFORE_COMPILING {
            assert_eq!(compiled.get(3, &mut emit), None);
        }
        assert!(compiled.get(3, &mut emit).is_some());
        assert_eq!(emitted, 2);
    }

    #[test]
    fn a_cpu_turned_off_compiles_nothing_and_its_copies_neither() {
        // These test the compiling itself: on even when the run asks to interpret.
        set_interpret(false);
        let mut compiled = CompiledCode::default();
        let emitted = std::cell::Cell::new(0);
        let emit = || {
            emitted.set(emitted.get() + 1);
            let mut ops = crate::x64::ops();
            crate::x64!(ops; ret);
            Some(crate::x64::finish(ops))
        };
        for _ in 0..ENTRIES_BEFORE_COMPILING {
            compiled.get(3, emit);
        }
        assert!(compiled.get(3, emit).is_some());
        compiled.set_off(true);
        assert_eq!(format!("{compiled:?}"), "CompiledCode { 0 compiled }");
        let mut copy = compiled.clone();
        for _ in 0..2 * ENTRIES_BEFORE_COMPILING {
            assert_eq!(compiled.get(3, emit), None);
            assert_eq!(copy.get(3, emit), None);
        }
        assert_eq!(emitted.get(), 1, "nothing emitted while off");
        compiled.set_off(false);
        for _ in 0..ENTRIES_BEFORE_COMPILING {
            assert_eq!(compiled.get(3, emit), None);
        }
        assert!(compiled.get(3, emit).is_some(), "on again, it compiles");
        assert_eq!(copy.get(3, emit), None, "the copy stays off");
    }
}
