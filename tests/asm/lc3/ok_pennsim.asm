; PennSim 1.2.5's instructions, assembled under --profile pennsim: SUB (an ADD with bits 4:3 =
; 10), MUL (opcode 1101, register and immediate), JMPT (a JMP with bit 0 set) and RTT (JMPT R7).
; PennSim's assembler also takes a file without .END (this one has none).
; options: pennsim
        .ORIG x3000
        SUB R1, R2, R3          ; = 0x1293
        MUL R1, R2, R3          ; = 0xD283
        MUL R1, R2, #-2         ; = 0xD2BE
        JMPT R2                 ; = 0xC081
        RTT                     ; = 0xC1C1
        sub r0, r0, r0          ; = 0x1010
