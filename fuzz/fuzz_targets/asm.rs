#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    asmdbg_fuzz::asm(data);
});
