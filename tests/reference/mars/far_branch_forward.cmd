asmdbg run far_branch_forward.asm
java Mars nc me far_branch_forward.asm
