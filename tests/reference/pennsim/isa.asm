; PennSim's own instructions and its rules: SUB and MUL (register and immediate forms), LEA
; setting the condition codes, JSRR, the results stored at x4000 for --peek (PennSim: list).
        .ORIG x3000
        LD R1, SEVEN
        LD R2, MINUS3
        SUB R3, R1, R2          ; 10
        MUL R4, R1, R2          ; -21
        MUL R5, R4, #-2         ; 42
        LD R6, RESULTS
        STR R3, R6, #0
        STR R4, R6, #1
        STR R5, R6, #2
        AND R0, R0, #0
        ADD R0, R0, #-1         ; N
        LEA R0, SEVEN           ; LEA sets the condition codes here: P
        BRp POSITIVE
        STR R1, R6, #3          ; not reached
POSITIVE LEA R7, SUB7
        JSRR R7
        STR R1, R6, #4          ; R1 - 7 = 0
        SUB R0, R1, R1          ; Z
        BRz ZERO
        HALT
ZERO    MUL R0, R2, R2          ; 9
        STR R0, R6, #5
        HALT
SUB7    ADD R1, R1, #-7
        RET
SEVEN   .FILL #7
MINUS3  .FILL #-3
RESULTS .FILL x4000
        .END
