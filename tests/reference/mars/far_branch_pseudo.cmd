asmdbg run far_branch_pseudo.asm
java Mars nc me far_branch_pseudo.asm
