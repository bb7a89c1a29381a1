asmdbg run --profile pennsim lc3os.asm hello.asm
pennsim-run lc3os.asm hello.asm
