asmdbg run --delay-slots --max-steps 1000 delay_untaken_branch_in_slot.asm
java Mars nc me db 1000 delay_untaken_branch_in_slot.asm
