; JSRR R7: lc3tools writes R7 (the return address) before it reads the base register, so the
; call lands on the next instruction and this prints "fell through". (Patt's book and lc3sim
; read R7 first and jump to the old R7: asmdbg does so under --profile patt and lc3sim.)
        .ORIG x3000
        LEA R7, TARGET
        JSRR R7
        LEA R0, FELL
        PUTS
        HALT
TARGET  LEA R0, JUMPED
        PUTS
        HALT
FELL    .STRINGZ "fell through\n"
JUMPED  .STRINGZ "jumped to the old R7\n"
        .END
