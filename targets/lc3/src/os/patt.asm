; Profile `patt`: the McGraw-Hill LC-3 simulator (2nd edition); the routines are in
; second_edition.asm. The HALT and IN texts are the ones the course's sample runs show; the
; undefined-trap and exception texts are asmdbg's, in the same style (the simulator's own are not
; documented).

; Exceptions (2nd edition: vector x00 privilege, x01 illegal opcode) arrive in supervisor mode.
EXC_PRIVILEGE
        LEA R0, PRIVILEGE_TEXT
        PUTS
        HALT
EXC_ILLEGAL
        LEA R0, ILLEGAL_TEXT
        PUTS
        HALT

HALT_TEXT       .STRINGZ "\n----- Halting the processor ----- \n"
IN_PROMPT       .STRINGZ "\nInput a character>"
BAD_TRAP_TEXT   .STRINGZ "\n----- Undefined trap executed ----- \n"
PRIVILEGE_TEXT  .STRINGZ "\n----- Privilege mode violation ----- \n"
ILLEGAL_TEXT    .STRINGZ "\n----- Illegal opcode ----- \n"
