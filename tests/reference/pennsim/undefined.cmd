asmdbg run --profile pennsim undefined.asm
pennsim-run lc3os.asm undefined.asm
