asmdbg run --delay-slots --max-steps 1000 delay_branch_in_branch_slot.asm
java Mars nc me db 1000 delay_branch_in_branch_slot.asm
