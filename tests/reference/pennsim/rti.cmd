asmdbg run --profile pennsim lc3os.asm rti.asm
pennsim-run lc3os.asm rti.asm
