; A copy of tests/programs/lc3/probe_bench.asm (the reference probe) with its words marked.
; Compute-heavy LC-3 benchmark: nested loop, ~60M instructions.
; Inner body: 6 instructions; INNER=10000, OUTER=1000.
        .ORIG x3000
        AND  R3, R3, #0        ; accumulator ; = 0x56E0
        LEA  R5, BUF           ; scratch pointer
        LD   R1, OUTER	; = 0x2210
OLOOP   LD   R2, INNER
ILOOP   ADD  R3, R3, R2        ; acc += i
        AND  R4, R3, #15
        STR  R4, R5, #0
        LDR  R4, R5, #0
        ADD  R2, R2, #-1
        BRp  ILOOP	; = 0x03FA
        ADD  R1, R1, #-1
        BRp  OLOOP	; = 0x03F7
        ; print low nibble of acc as hex digit, then newline
        AND  R0, R3, #15
        LD   R6, ASCII0
        ADD  R0, R0, R6
        OUT
        LEA  R0, DONE
        PUTS
        HALT
OUTER   .FILL #1000	; = 0x03E8
INNER   .FILL #10000	; = 0x2710
ASCII0  .FILL x0041            ; 'A' + nibble
DONE    .STRINGZ " <- checksum letter; bench done\n"
BUF     .BLKW 1
        .END
