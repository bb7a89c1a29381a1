; A branch with no condition (x0000 among them) is no instruction in PennSim's ISA: it stops
; with "Undefined instruction".
        .ORIG x3000
        LEA R0, TEXT
        PUTS
        .FILL x0000
        HALT
TEXT    .STRINGZ "before"
        .END
