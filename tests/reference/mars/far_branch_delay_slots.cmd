asmdbg run --delay-slots far_branch_delay_slots.asm
java Mars nc me db far_branch_delay_slots.asm
