asmdbg run --delay-slots --max-steps 1000 delay_syscall_exit_in_slot.asm
java Mars nc me db 1000 delay_syscall_exit_in_slot.asm
