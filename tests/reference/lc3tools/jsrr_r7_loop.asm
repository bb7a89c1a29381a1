; JSRR R7 in a loop run 200 times (long enough for asmdbg to compile the loop): each JSRR R7
; goes on to the next instruction under lc3tools, so the counter reaches 200 and the loop
; prints one dot per 20 rounds. A JSRR through another register still calls.
        .ORIG x3000
        AND R1, R1, #0
        LD R2, ROUNDS
        LEA R3, DOT
LOOP    LEA R7, SKIP
        JSRR R7
        ADD R1, R1, #1
SKIP    ADD R2, R2, #-1
        BRz DONE
        AND R4, R2, #0
        ADD R4, R1, #-10
        ADD R4, R4, #-10
        BRnp LOOP
        JSRR R3
        AND R1, R1, #0
        BR LOOP
DONE    HALT
DOT     LD R0, DOTCHAR
        OUT
        RET
ROUNDS  .FILL #200
DOTCHAR .FILL x2E
        .END
