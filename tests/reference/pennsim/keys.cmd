asmdbg run --profile pennsim lc3os.asm keys.asm --input keys.keys --peek x4000:2
pennsim-run --input keys.keys --list x4000:2 lc3os.asm keys.asm
