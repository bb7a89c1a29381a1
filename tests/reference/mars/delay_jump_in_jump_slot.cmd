asmdbg run --delay-slots --max-steps 1000 delay_jump_in_jump_slot.asm
java Mars nc me db 1000 delay_jump_in_jump_slot.asm
