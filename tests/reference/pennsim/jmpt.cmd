asmdbg run --profile pennsim jmpt.asm --peek x2000:2
pennsim-run --list x2000:2 lc3os.asm jmpt.asm
