//! The x86-64 code the cpus compile: the convention every compiled function follows, and the
//! assembler the three code generators write it with.
//!
//! The generators write assembly syntax with `dynasm`'s macro through [`x64!`](crate::x64!):
//! each instruction is encoded by the macro (checked when the crate builds), jumps go to labels
//! resolved when the function is finished. A function is written into an [`Ops`] and finished
//! into bytes that [`CompiledCode`](crate::code_memory::CompiledCode) copies into executable
//! memory.
//!
//! # The convention
//! A compiled function is a [`CompiledFn`](crate::code_memory::CompiledFn): the SysV call
//! `fn(state, max_rounds) -> CompiledOutcome`, `rax` the rounds it completed and `rdx` the
//! outcome's `next`. [`x64!`](crate::x64!) names the registers every generator uses alike:
//!
//! | name         | register | holds |
//! | ------------ | -------- | ----- |
//! | `context`    | `rdi`    | the state: a cpu's registers, or a context of its own |
//! | `max_rounds` | `rsi`    | the rounds allowed, at least 1 (LC-3 counts it down: the rounds left) |
//! | `rounds`     | `r8`     | the rounds completed, where they are counted up ([`end_round`]) |
//! | `pc`         | `eax`    | the guest's PC after a round, at the end of the round |
//! | `next`       | `rdx`    | the outcome's `next` at the exit (`next_d`: its low half, `edx`) |
//!
//! One round is the whole run or block; the function goes round again while the PC after the
//! round is its start and rounds are left, then exits with the PC in `next`. An access or
//! result the code does not handle leaves *before* its instruction `k`, nothing of it done:
//! the jump goes to a stub ([`EarlyExits`]) that sets `next` to `k` with
//! [`LEFT_EARLY`](crate::code_memory::LEFT_EARLY), then to the exit.

pub use dynasmrt::x64::{Rq, X64Relocation};
pub use dynasmrt::{dynasm, DynamicLabel, DynasmApi, DynasmLabelApi};

/// A function being written: bytes at offset 0 with labels of their own, position
/// independent (every jump stays inside the function).
pub type Ops = dynasmrt::VecAssembler<X64Relocation>;

/// [`dynasm!`] for x86-64 with the convention's register names (see the module's
/// documentation): `x64!(ops; mov [context + BYTE LAST], r10d)`.
#[macro_export]
macro_rules! x64 {
    ($ops:expr ; $($t:tt)*) => {{
        #[allow(unused_imports)]
        use $crate::x64::{DynasmApi as _, DynasmLabelApi as _};
        $crate::x64::dynasm!($ops
            ; .arch x64
            ; .alias context, rdi
            ; .alias max_rounds, rsi
            ; .alias rounds, r8
            ; .alias pc, eax
            ; .alias next, rdx
            ; .alias next_d, edx
            ; $($t)*
        )
    }};
}

/// An empty function.
pub fn ops() -> Ops {
    Ops::new(0)
}

/// The bytes of a function written into `ops`.
///
/// # Panics
/// If a jump goes to a label never defined: a mistake in the generator.
pub fn finish(ops: Ops) -> Vec<u8> {
    match ops.finalize() {
        Ok(code) => code,
        Err(error) => panic!("compiled code with a jump to nowhere: {error}"),
    }
}

/// The end of a round whose rounds are counted up in `rounds`, with the PC after it in `pc`:
/// counts the round and goes round again from `top` while the PC is `start` and rounds are
/// left; else falls out with the PC in `next` (the caller's exit follows).
pub fn end_round(ops: &mut Ops, start: u32, top: DynamicLabel) {
    crate::x64!(ops
        ; inc rounds
        ; cmp pc, start as i32
        ; jne >exit
        ; cmp rounds, max_rounds
        ; jne =>top
        ; exit:
        ; mov next_d, pc
    );
}

/// The jumps that leave before an instruction, each with what its stub needs besides the
/// instruction's index (`T`: LC-3 keeps where its condition codes were).
pub struct EarlyExits<T = ()> {
    stubs: Vec<(DynamicLabel, usize, T)>,
}

impl<T> Default for EarlyExits<T> {
    fn default() -> Self {
        EarlyExits { stubs: Vec::new() }
    }
}

impl<T> EarlyExits<T> {
    /// The label to jump to to leave before instruction `k`.
    pub fn before(&mut self, ops: &mut Ops, k: usize, with: T) -> DynamicLabel {
        let stub = ops.new_dynamic_label();
        self.stubs.push((stub, k, with));
        stub
    }

    /// Writes each stub: `next` takes its instruction's index with `LEFT_EARLY`, then `then`
    /// writes the rest of the way out.
    pub fn write(self, ops: &mut Ops, mut then: impl FnMut(&mut Ops, T)) {
        for (stub, k, with) in self.stubs {
            crate::x64!(ops
                ; =>stub
                ; mov next_d, k as i32
                ; bts next, 32
            );
            then(ops, with);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_round_end_and_a_stub_read_back_as_written() {
        let mut ops = ops();
        let top = ops.new_dynamic_label();
        crate::x64!(ops; =>top);
        end_round(&mut ops, 0x3000, top);
        let mut early = EarlyExits::default();
        let stub = early.before(&mut ops, 7, ());
        crate::x64!(ops; jo =>stub);
        early.write(&mut ops, |ops, ()| crate::x64!(ops; ret));
        let code = finish(ops);
        let Some(listing) = asmdbg_testsupport::x64::objdump(&code) else {
            return;
        };
        assert_eq!(
            listing,
            [
                "inc r8",
                "cmp eax,0x3000",
                "jne 0x17",
                "cmp r8,rsi",
                "jne 0x0",
                "mov edx,eax",
                "jo 0x1f",
                "mov edx,0x7",
                "bts rdx,0x20",
                "ret",
            ]
        );
    }
}
