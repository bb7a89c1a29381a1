//! SimpleRISC (Sarangi, *Computer Organisation and Architecture*): assembler, cpu, and the
//! [`asmdbg_core::Machine`] implementation, compatible with the course emulators.
