asmdbg run --profile pennsim timer.asm --input timer.keys
pennsim-run --input timer.keys lc3os.asm timer.asm
