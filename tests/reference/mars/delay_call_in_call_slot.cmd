asmdbg run --delay-slots --max-steps 1000 delay_call_in_call_slot.asm
java Mars nc me db 1000 delay_call_in_call_slot.asm
