; Keyboard-interrupt lab, the interrupt service routine (x1500).
;
; Entered through the interrupt vector table when a key arrives (user_program.asm installs
; it): the processor has pushed the interrupted program's PSR and PC on the supervisor stack
; (R6). Reads the key from KBDR, which also clears KBSR's ready bit. A capital letter (A-Z) or
; a lowercase one (a-z) is echoed ten times on a line of its own; any other key is ignored.
; The routine prints by polling DSR and writing DDR itself rather than with TRAP x21 (OUT), and it
; saves and restores every register it uses, R7 included, on the supervisor stack: the
; interrupted program may be anywhere, even inside a trap routine. RTI returns to it.

        .ORIG x1500
ISR     ADD R6, R6, #-4     ; save R0, R1, R2 and R7 of the interrupted program
        STR R0, R6, #0
        STR R1, R6, #1
        STR R2, R6, #2
        STR R7, R6, #3
        LDI R0, KBDR_PTR    ; the key
        LD R1, NEG_UPPER_A
        ADD R1, R0, R1      ; R1 = key - 'A'
        BRn DONE            ; below 'A': not a letter
        ADD R2, R1, #-16    ; R1 - 26 = key - 'Z' - 1 (in two steps: immediates are 5 bits)
        ADD R2, R2, #-10
        BRn ECHO            ; 'A'..'Z'
        ADD R1, R1, #-16    ; R1 = key - 'a' = key - 'A' - 32
        ADD R1, R1, #-16
        BRn DONE            ; between 'Z' and 'a'
        ADD R2, R1, #-16
        ADD R2, R2, #-10
        BRzp DONE           ; above 'z'
ECHO    JSR NEWLINE
        AND R2, R2, #0
        ADD R2, R2, #10     ; ten copies
AGAIN   JSR PRINT_CH
        ADD R2, R2, #-1
        BRp AGAIN
        JSR NEWLINE
DONE    LDR R7, R6, #3
        LDR R2, R6, #2
        LDR R1, R6, #1
        LDR R0, R6, #0
        ADD R6, R6, #4
        RTI

; Prints R0's character once the display is ready.
PRINT_CH    LDI R1, DSR_PTR
        BRzp PRINT_CH
        STI R0, DDR_PTR
        RET

; Prints a newline, keeping R0.
NEWLINE ST R0, NL_SAVE
        LD R0, LF
        ST R7, NL_RET
        JSR PRINT_CH
        LD R7, NL_RET
        LD R0, NL_SAVE
        RET

KBDR_PTR    .FILL xFE02
DSR_PTR     .FILL xFE04
DDR_PTR     .FILL xFE06
NEG_UPPER_A .FILL #-65
LF          .FILL x000A
NL_SAVE     .BLKW 1
NL_RET      .BLKW 1
        .END
