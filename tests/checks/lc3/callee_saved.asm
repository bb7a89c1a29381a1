; DOUBLE saves R1 on entry but returns with R1 doubled: main's R1 is not its own any more.
        .ORIG x3000
        AND R1, R1, #0
        ADD R1, R1, #5
        JSR DOUBLE
        ADD R2, R1, #0
        HALT
DOUBLE  ST R1, SAVE1
        ADD R1, R1, R1
        ADD R0, R1, #0
        RET                     ; expect: warning[callee-saved]
SAVE1   .BLKW 1
        .END
