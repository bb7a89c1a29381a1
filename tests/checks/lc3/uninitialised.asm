; R1 counts from whatever it held; x4000 was never declared or stored to.
        .ORIG x3000
        ADD R1, R1, #1          ; expect: warning[uninitialised]
        LD R3, POINTER
        LDR R4, R3, #0          ; expect: warning[uninitialised]
        LEA R0, MSG
        PUTS
        HALT
POINTER .FILL x4000
MSG     .STRINGZ "done"
        .END
