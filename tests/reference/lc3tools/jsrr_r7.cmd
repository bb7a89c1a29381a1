asmdbg run --profile lc3tools jsrr_r7.asm
lc3tools-assembler jsrr_r7.asm >/dev/null && lc3run jsrr_r7.obj
