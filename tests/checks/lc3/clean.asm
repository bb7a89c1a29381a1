; Every convention kept: a stack in R6, R7 pushed around a nested call and a TRAP, the
; registers a subroutine saves restored, R0 carrying the result.
        .ORIG x3000
        LD R6, STACK
        AND R1, R1, #0
        ADD R1, R1, #3
        JSR SUM
        ADD R2, R1, R0
        LEA R0, DONE
        PUTS
        HALT
SUM     ADD R6, R6, #-1
        STR R7, R6, #0
        ST R1, SAVE1
        AND R0, R0, #0
SUM_LOOP
        ADD R0, R0, R1
        ADD R1, R1, #-1
        BRp SUM_LOOP
        JSR NOTHING
        OUT
        LD R1, SAVE1
        LDR R7, R6, #0
        ADD R6, R6, #1
        RET
NOTHING RET
SAVE1   .BLKW 1
STACK   .FILL xFE00
DONE    .STRINGZ "done"
        .END
