asmdbg run far_branch_word.asm 0x00400000-0x0040000c
java Mars nc me far_branch_word.asm 0x00400000-0x0040000c
