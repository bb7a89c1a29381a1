; RTI in supervisor mode pops the PC from the stack word at R6 and takes the PSR from the same
; word (PennSim reads it twice): x3011 has bit 15 clear and bit 0 set, so the program goes on
; at x3011 in user mode with P set. RTI again, now in user mode, stops PennSim with its exception text.
        .ORIG x3000
        LD R0, DOT
        OUT                     ; supervisor mode from here
        LEA R6, FRAME
        RTI
        HALT                    ; not reached
FRAME   .FILL x3011
        .FILL x0000
DOT     .FILL x2E
        .BLKW 9
        ; x3011
        BRp GOOD
        HALT
GOOD    RTI
        .END
