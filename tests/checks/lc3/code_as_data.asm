; A store over an instruction, then a jump into a .FILL.
        .ORIG x3000
        AND R1, R1, #0
        LD R0, NOP_WORD
        ST R0, PATCH            ; expect: warning[code-as-data]
PATCH   ADD R1, R1, #1
        BRnzp DATA
        HALT
DATA    .FILL x0FFE             ; expect: warning[code-as-data]
NOP_WORD .FILL x0000
        .END
