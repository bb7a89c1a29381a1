; Profile `lc3tools`: UT Austin's lc3tools (3rd edition), asmdbg's own OS image.
;
; A 3rd-edition TRAP enters supervisor mode with R6 on the supervisor stack and leaves R7 alone,
; so these routines keep registers on that stack, call each other with TRAP, and return with
; RTI. That makes them reentrant: a keyboard interrupt routine may print while the program it
; interrupted is inside PUTS. Texts as lc3tools prints them (isa-specs A.4), including the
; missing space in the access-violation banner. os.rs assembles devices.asm (the device
; addresses) before this file and points the vector tables at the TRAP_* and EXC_* labels.

; TRAP x20 GETC: R0 = the next key, not echoed.
TRAP_GETC
        ADD R6, R6, #-1
        STR R1, R6, #0
GETC_WAIT
        LDI R1, KBSR_AT
        BRzp GETC_WAIT
        LDI R0, KBDR_AT
        LDR R1, R6, #0
        ADD R6, R6, #1
        RTI

; TRAP x21 OUT: prints R0[7:0].
TRAP_OUT
        ADD R6, R6, #-1
        STR R1, R6, #0
OUT_WAIT
        LDI R1, DSR_AT
        BRzp OUT_WAIT
        STI R0, DDR_AT
        LDR R1, R6, #0
        ADD R6, R6, #1
        RTI

; TRAP x22 PUTS: prints the string at R0, one character per word, up to a zero word.
TRAP_PUTS
        ADD R6, R6, #-2
        STR R0, R6, #1
        STR R1, R6, #0
        ADD R1, R0, #0
PUTS_NEXT
        LDR R0, R1, #0
        BRz PUTS_DONE
        OUT
        ADD R1, R1, #1
        BRnzp PUTS_NEXT
PUTS_DONE
        LDR R1, R6, #0
        LDR R0, R6, #1
        ADD R6, R6, #2
        RTI

; TRAP x23 IN: prompt, read a key, echo it and a newline; R0 = the key.
TRAP_IN
        LD R0, IN_PROMPT_AT
        PUTS
        GETC
        OUT
        ADD R6, R6, #-1
        STR R0, R6, #0
        LD R0, NEWLINE
        OUT
        LDR R0, R6, #0
        ADD R6, R6, #1
        RTI

; TRAP x24 PUTSP: prints the packed string at R0, low byte first, up to the first zero byte.
TRAP_PUTSP
        ADD R6, R6, #-6
        STR R0, R6, #5
        STR R1, R6, #4
        STR R2, R6, #3
        STR R3, R6, #2
        STR R4, R6, #1
        STR R5, R6, #0
        ADD R1, R0, #0
PUTSP_WORD
        LDR R2, R1, #0
        LD R3, LOW_BYTE
        AND R0, R2, R3
        BRz PUTSP_DONE
        OUT
        ; R0 = R2 >> 8, one bit at a time: the LC-3 has no shift.
        AND R0, R0, #0
        AND R4, R4, #0
        ADD R4, R4, #1
        LD R3, BIT_8
PUTSP_BIT
        AND R5, R2, R3
        BRz PUTSP_CLEAR
        ADD R0, R0, R4
PUTSP_CLEAR
        ADD R4, R4, R4
        ADD R3, R3, R3
        BRnp PUTSP_BIT
        ADD R0, R0, #0
        BRz PUTSP_DONE
        OUT
        ADD R1, R1, #1
        BRnzp PUTSP_WORD
PUTSP_DONE
        LDR R5, R6, #0
        LDR R4, R6, #1
        LDR R3, R6, #2
        LDR R2, R6, #3
        LDR R1, R6, #4
        LDR R0, R6, #5
        ADD R6, R6, #6
        RTI

; TRAP x25 HALT: prints the banner and clears MCR[15], which stops the clock. If a debugger
; starts the clock again, the routine returns to the program.
TRAP_HALT
        ADD R6, R6, #-2
        STR R0, R6, #1
        STR R1, R6, #0
        LD R0, HALT_TEXT_AT
        PUTS
        LDI R1, MCR_AT
        LD R0, CLOCK_OFF
        AND R1, R1, R0
        STI R1, MCR_AT
        LDR R1, R6, #0
        LDR R0, R6, #1
        ADD R6, R6, #2
        RTI

; Every trap vector without a routine.
TRAP_BAD
        ADD R6, R6, #-1
        STR R0, R6, #0
        LD R0, BAD_TRAP_TEXT_AT
        PUTS
        HALT
        LDR R0, R6, #0
        ADD R6, R6, #1
        RTI

; Exceptions: the banner, then HALT. The saved PC is the faulting instruction's, so returning
; would only fault again.
EXC_PRIVILEGE
        LD R0, PRIVILEGE_TEXT_AT
        PUTS
        HALT
EXC_ILLEGAL
        LD R0, ILLEGAL_TEXT_AT
        PUTS
        HALT
EXC_ACCESS
        LD R0, ACCESS_TEXT_AT
        PUTS
        HALT

HALT_TEXT_AT    .FILL HALT_TEXT
IN_PROMPT_AT    .FILL IN_PROMPT
BAD_TRAP_TEXT_AT .FILL BAD_TRAP_TEXT
PRIVILEGE_TEXT_AT .FILL PRIVILEGE_TEXT
ILLEGAL_TEXT_AT .FILL ILLEGAL_TEXT
ACCESS_TEXT_AT  .FILL ACCESS_TEXT

HALT_TEXT       .STRINGZ "\n\n--- Halting the LC-3 ---\n\n"
IN_PROMPT       .STRINGZ "\nInput a character> "
BAD_TRAP_TEXT   .STRINGZ "\n\n--- Undefined trap executed ---\n\n"
PRIVILEGE_TEXT  .STRINGZ "\n\n--- Privilege violation ---\n\n"
ILLEGAL_TEXT    .STRINGZ "\n\n--- Illegal opcode ---\n\n"
ACCESS_TEXT     .STRINGZ "\n\n--- Access violation---\n\n"
