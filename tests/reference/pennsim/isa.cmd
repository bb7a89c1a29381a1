asmdbg run --profile pennsim isa.asm --peek x4000:6
pennsim-run --list x4000:6 lc3os.asm isa.asm
