asmdbg run --delay-slots --max-steps 1000 delay_address_error_in_slot.asm
java Mars nc me db 1000 delay_address_error_in_slot.asm
