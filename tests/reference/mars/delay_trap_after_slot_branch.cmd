asmdbg run --delay-slots --max-steps 1000 delay_trap_after_slot_branch.asm
java Mars nc me db 1000 delay_trap_after_slot_branch.asm
