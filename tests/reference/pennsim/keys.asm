; Keys from the input file: IN (its prompt and echo), GETC, then PUTSP of a packed string; the
; keys are stored at x4000.
        .ORIG x3000
        IN
        STI R0, FIRST
        GETC
        STI R0, SECOND
        OUT
        LEA R0, PACKED
        PUTSP
        HALT
FIRST   .FILL x4000
SECOND  .FILL x4001
PACKED  .FILL x6B6F             ; "ok", low byte first
        .FILL x000A             ; "\n"
        .FILL x0000
        .END
