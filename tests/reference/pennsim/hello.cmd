asmdbg run --profile pennsim hello.asm
pennsim-run lc3os.asm hello.asm
