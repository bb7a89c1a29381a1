asmdbg run --profile lc3tools jsrr_r7_loop.asm
lc3tools-assembler jsrr_r7_loop.asm >/dev/null && lc3run jsrr_r7_loop.obj
