asmdbg run --profile pennsim no_end.asm
pennsim-run lc3os.asm no_end.asm
