        .ORIG x3000
        LEA R0, TEXT
        PUTS
        HALT
TEXT    .STRINGZ "no .END: PennSim ends the block at the end of the file"
