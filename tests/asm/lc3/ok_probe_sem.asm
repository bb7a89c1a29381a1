; A copy of tests/programs/lc3/probe_sem.asm (the reference probe) with its words marked.
        .ORIG x3000
        AND R0, R0, #0	; = 0x5020
        ADD R1, R0, #-1     ; CC = N ; = 0x123F
        LEA R2, DATA        ; 3rd ed (lc3tools): CC unchanged; 2nd ed (lc3sim): CC from R2 (P) ; = 0xE417
        BRn WASN
        LD R0, CHP
        BRnzp SHOW
WASN    LD R0, CHN
SHOW    LD R7, MAGIC
        OUT                 ; does TRAP change R7?
        LD R3, NMAGIC
        ADD R3, R3, R7
        BRz SAME
        LD R0, CHC
        OUT
        BRnzp NEXT
SAME    LD R0, CHS
        OUT
NEXT    LD R0, NL
        OUT
        .FILL x1018         ; ADD R0,R0,R0 with bit 3 set (non-canonical encoding) ; = 0x1018
        LD R0, CHD
        OUT
        .FILL xD000         ; reserved opcode 1101 ; = 0xD000
        LD R0, CHX
        OUT
        HALT	; = 0xF025
DATA    .FILL 0
CHP     .FILL x50
CHN     .FILL x4E
CHC     .FILL x43
CHS     .FILL x53
CHD     .FILL x44
CHX     .FILL x58
NL      .FILL x0A
MAGIC   .FILL x1234	; = 0x1234
NMAGIC  .FILL xEDCC	; = 0xEDCC
        .END
