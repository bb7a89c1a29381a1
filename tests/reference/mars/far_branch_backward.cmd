asmdbg run far_branch_backward.asm
java Mars nc me far_branch_backward.asm
