; After a TRAP the course OS returns with RET, so the program goes on in supervisor mode: a
; store to x2000 works. JMPT leaves supervisor mode: the same store is then denied by the MPR
; (x0FF8 opens x3000-xBFFF only) and PennSim stops with its exception text.
        .ORIG x3000
        LD R0, STAR
        OUT                     ; now in supervisor mode
        LD R1, LOW
        STR R0, R1, #0          ; allowed
        LEA R2, USER
        JMPT R2
        HALT                    ; not reached
USER    STR R0, R1, #1          ; denied
        HALT
STAR    .FILL x2A
LOW     .FILL x2000
        .END
