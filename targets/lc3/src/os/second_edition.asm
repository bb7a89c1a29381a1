; The 2nd-edition trap routines shared by the `patt` and `lc3sim` OS images (asmdbg's own code).
;
; os.rs assembles ".ORIG x0200", this file, devices.asm (the device addresses), the profile's file
; and ".END" as one source. The profile's file supplies the texts HALT_TEXT, IN_PROMPT and
; BAD_TRAP_TEXT and the exception handlers it has. os.rs points the trap vector table at the
; TRAP_* labels and the exception table at the EXC_* labels. A 2nd-edition TRAP leaves the return
; address in R7: routines end in RET.
;
; The routines poll KBSR and DSR and move characters through KBDR and DDR like the reference
; OSes, so stepping into a TRAP under a debugger shows real LC-3 code. They keep registers in
; memory rather than on a stack, because a 2nd-edition TRAP does not switch to a stack known to
; be valid. They are therefore not reentrant: an interrupt routine must not call a trap while the
; code it interrupted is inside one.

; TRAP x20 GETC: R0 = the next key, not echoed.
TRAP_GETC
        ST R7, SAVED_R7
        JSR READ_KEY
        LD R7, SAVED_R7
        ADD R0, R0, #0
        RET

; TRAP x21 OUT: prints R0[7:0].
TRAP_OUT
        ST R7, SAVED_R7
        JSR WRITE_CHAR
        LD R7, SAVED_R7
        RET

; TRAP x22 PUTS: prints the string at R0, one character per word, up to a zero word.
TRAP_PUTS
        ST R7, SAVED_R7
        JSR WRITE_STRING
        LD R7, SAVED_R7
        RET

; TRAP x23 IN: prompt, read a key, echo it and a newline; R0 = the key.
TRAP_IN
        ST R7, SAVED_R7
        LD R0, IN_PROMPT_AT
        JSR WRITE_STRING
        JSR READ_KEY
        JSR WRITE_CHAR
        ST R0, IN_KEY
        LD R0, NEWLINE
        JSR WRITE_CHAR
        LD R0, IN_KEY
        LD R7, SAVED_R7
        ADD R0, R0, #0
        RET

; TRAP x24 PUTSP: prints the packed string at R0, low byte first, up to the first zero byte.
TRAP_PUTSP
        ST R7, SAVED_R7
        ST R0, SAVED_R0
        ST R1, SAVED_R1
        ST R2, SAVED_R2
        ST R3, SAVED_R3
        ST R4, SAVED_R4
        ST R5, SAVED_R5
        ADD R1, R0, #0
PACKED_WORD
        LDR R2, R1, #0
        LD R3, LOW_BYTE
        AND R0, R2, R3
        BRz PACKED_DONE
        JSR WRITE_CHAR
        ; R0 = R2 >> 8, one bit at a time: the LC-3 has no shift.
        AND R0, R0, #0
        AND R4, R4, #0
        ADD R4, R4, #1
        LD R3, BIT_8
PACKED_BIT
        AND R5, R2, R3
        BRz PACKED_CLEAR
        ADD R0, R0, R4
PACKED_CLEAR
        ADD R4, R4, R4
        ADD R3, R3, R3
        BRnp PACKED_BIT
        ADD R0, R0, #0
        BRz PACKED_DONE
        JSR WRITE_CHAR
        ADD R1, R1, #1
        BRnzp PACKED_WORD
PACKED_DONE
        LD R0, SAVED_R0
        LD R1, SAVED_R1
        LD R2, SAVED_R2
        LD R3, SAVED_R3
        LD R4, SAVED_R4
        LD R5, SAVED_R5
        LD R7, SAVED_R7
        RET

; TRAP x25 HALT: prints the profile's banner and clears MCR[15], which stops the clock. If a
; debugger starts the clock again, the routine returns to the program.
TRAP_HALT
        ST R7, HALT_R7
        ST R0, HALT_R0
        ST R1, HALT_R1
        LD R0, HALT_TEXT_AT
        JSR WRITE_STRING
        LDI R1, MCR_AT
        LD R0, CLOCK_OFF
        AND R1, R1, R0
        STI R1, MCR_AT
        LD R0, HALT_R0
        LD R1, HALT_R1
        LD R7, HALT_R7
        RET

; Every trap vector without a routine: the profile's text, then HALT.
TRAP_BAD
        ST R7, SAVED_R7
        LD R0, BAD_TRAP_TEXT_AT
        JSR WRITE_STRING
        HALT
        LD R7, SAVED_R7
        RET

; R0 = the next key (waits on KBSR[15]); other registers kept.
READ_KEY
        ST R1, CHAR_R1
READ_KEY_POLL
        LDI R1, KBSR_AT
        BRzp READ_KEY_POLL
        LDI R0, KBDR_AT
        LD R1, CHAR_R1
        RET

; Prints R0[7:0] (waits on DSR[15]); registers kept.
WRITE_CHAR
        ST R1, CHAR_R1
WRITE_CHAR_POLL
        LDI R1, DSR_AT
        BRzp WRITE_CHAR_POLL
        STI R0, DDR_AT
        LD R1, CHAR_R1
        RET

; Prints the zero-terminated string at R0; registers kept.
WRITE_STRING
        ST R0, STRING_R0
        ST R1, STRING_R1
        ST R7, STRING_R7
        ADD R1, R0, #0
WRITE_STRING_NEXT
        LDR R0, R1, #0
        BRz WRITE_STRING_DONE
        JSR WRITE_CHAR
        ADD R1, R1, #1
        BRnzp WRITE_STRING_NEXT
WRITE_STRING_DONE
        LD R0, STRING_R0
        LD R1, STRING_R1
        LD R7, STRING_R7
        RET

SAVED_R0        .BLKW 1
SAVED_R1        .BLKW 1
SAVED_R2        .BLKW 1
SAVED_R3        .BLKW 1
SAVED_R4        .BLKW 1
SAVED_R5        .BLKW 1
SAVED_R7        .BLKW 1
HALT_R0         .BLKW 1
HALT_R1         .BLKW 1
HALT_R7         .BLKW 1
CHAR_R1         .BLKW 1
STRING_R0       .BLKW 1
STRING_R1       .BLKW 1
STRING_R7       .BLKW 1
IN_KEY          .BLKW 1
HALT_TEXT_AT    .FILL HALT_TEXT
IN_PROMPT_AT    .FILL IN_PROMPT
BAD_TRAP_TEXT_AT .FILL BAD_TRAP_TEXT
