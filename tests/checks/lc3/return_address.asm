; OUTER calls INNER without saving R7: its RET comes back to itself forever.
        .ORIG x3000
        JSR OUTER
        HALT
OUTER   AND R0, R0, #0
        JSR INNER               ; expect: warning[return-address]
        RET
INNER   ADD R0, R0, #1
        RET
        .END
