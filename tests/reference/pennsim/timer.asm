; PennSim's timer with TMI = 1: each `.` in the keyboard input is a tick that TMR reports (and
; KBSR does not show as a key). Prints T for the tick, then the key.
        .ORIG x3000
        LD R0, DASH
        OUT                     ; supervisor mode: the timer registers are in page xF
        AND R1, R1, #0
        ADD R1, R1, #1
        STI R1, TMI
WAIT    LDI R2, TMR
        BRzp WAIT
        LD R0, TICK
        OUT
        GETC
        OUT
        HALT
TMI     .FILL xFE0A
TMR     .FILL xFE08
DASH    .FILL x2D
TICK    .FILL x54
        .END
