; PUSHER pushes R7 and pops it without moving R6 back.
        .ORIG x3000
        LD R6, STACK
        JSR PUSHER
        HALT
PUSHER  ADD R6, R6, #-1
        STR R7, R6, #0
        LDR R7, R6, #0
        RET                     ; expect: warning[stack]
STACK   .FILL xFE00
        .END
