; Loops whose memory accesses the checks' fast path runs a block at a time: each load and
; store is asked before it is made, so the warnings are those of one instruction at a time.
        .ORIG x3000
START   LEA R5, ARRAY
        AND R2, R2, #0
        ADD R2, R2, #6          ; two words past the array's four
        AND R3, R3, #0
SUM     LDR R4, R5, #0          ; expect: warning[uninitialised]
        ADD R3, R3, R4
        ADD R5, R5, #1
        ADD R2, R2, #-1
        BRp SUM
; Fresh memory at x4000, filled before it is read: no warning.
        LD R5, FRESH
        AND R2, R2, #0
        ADD R2, R2, #5
FILL    STR R2, R5, #0
        ADD R5, R5, #1
        ADD R2, R2, #-1
        BRp FILL
        LD R5, FRESH
        ADD R2, R2, #5
READ    LDR R4, R5, #0
        ADD R5, R5, #1
        ADD R2, R2, #-1
        BRp READ
; A clearing loop that starts at START: over instructions that already ran.
        LEA R5, START
        AND R2, R2, #0
        ADD R2, R2, #2
CLEAR   STR R2, R5, #0          ; expect: warning[code-as-data]
        ADD R5, R5, #1
        ADD R2, R2, #-1
        BRp CLEAR
        LD R6, STACK
        AND R1, R1, #0
        ADD R1, R1, #3
        JSR DOUBLE
        ADD R2, R1, #0          ; uses the R1 DOUBLE changed
        JSR PEEK
        HALT
; Saves R1 in a block that goes on with a branch, then returns with R1 changed.
DOUBLE  ST R1, SAVE1
        ADD R1, R1, R1
        BRnzp DOUBLED
DOUBLED ADD R0, R1, #0
        RET                     ; expect: warning[callee-saved]
; Moves R6, addresses memory through it in a block, and does not give R6 back.
PEEK    ADD R6, R6, #-1
        STR R7, R6, #0
        LDR R7, R6, #0
        BRnzp PEEKED
PEEKED  RET                     ; expect: warning[stack]
FRESH   .FILL x4000
STACK   .FILL xFE00
SAVE1   .BLKW 1
; The last words of the program: nothing is declared after them.
ARRAY   .FILL #1
        .FILL #2
        .FILL #3
        .FILL #4
        .END
