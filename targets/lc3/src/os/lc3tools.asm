; Profile `lc3tools`: UT Austin's lc3tools (3rd edition), asmdbg's own OS image, laid out as
; lc3tools lays out its OS and executing as many instructions per call as lc3tools' routines do
; (facts read from lc3tools' OS: the addresses of the boot code, x0200, and of the trap
; routines, x0300 on; which registers each routine saves on the supervisor stack; the texts).
; So a program that counts instructions, hits `--max-steps`, or looks at where a routine
; starts sees what it sees under lc3tools. The code is written here; where a program reads the
; OS's own words (a PUTS from x0000, say) the bytes may still differ.
;
; A 3rd-edition TRAP enters supervisor mode with R6 on the supervisor stack and leaves R7 alone,
; so these routines keep registers on that stack, call each other with TRAP, and return with
; RTI. os.rs assembles this file alone from x0200 (it places its own constants) and points the
; vector tables at the TRAP_*, EXC_* and INT_BAD labels.

; x0200: lc3tools' boot path, for a machine started at x0200: a supervisor stack at x3000,
; then RTI into user mode at x3000 with PSR x8002. A program loaded at its origin starts
; there directly (as lc3tools starts it), so this only runs if jumped to.
OS_BOOT
        LD R6, BOOT_STACK
        LD R0, BOOT_PSR
        ADD R6, R6, #-1
        STR R0, R6, #0
        LD R0, BOOT_PC
        ADD R6, R6, #-1
        STR R0, R6, #0
        RTI
BOOT_STACK      .FILL x3000
BOOT_PSR        .FILL x8002
BOOT_PC         .FILL x3000
        .BLKW xF5                       ; up to x0300, where the trap routines start

; x0300 TRAP x20 GETC: R0 = the next key, not echoed. 4 instructions when a key is waiting.
TRAP_GETC
        LDI R0, GETC_KBSR
        BRzp TRAP_GETC
        LDI R0, GETC_KBDR
        RTI
GETC_KBSR       .FILL xFE00
GETC_KBDR       .FILL xFE02

; x0306 TRAP x21 OUT: prints R0[7:0]. 8 instructions when the display is ready.
TRAP_OUT
        ADD R6, R6, #-1
        STR R1, R6, #0
OUT_WAIT
        LDI R1, OUT_DSR
        BRzp OUT_WAIT
        STI R0, OUT_DDR
        LDR R1, R6, #0
        ADD R6, R6, #1
        RTI
OUT_DSR         .FILL xFE04
OUT_DDR         .FILL xFE06

; x0310 TRAP x22 PUTS: prints the string at R0, one character per word, up to a zero word.
; 12 instructions, and 13 per character (its OUT included).
TRAP_PUTS
        ADD R6, R6, #-1
        STR R0, R6, #0
        ADD R6, R6, #-1
        STR R1, R6, #0
        ADD R1, R0, #0
PUTS_NEXT
        LDR R0, R1, #0
        BRz PUTS_DONE
        OUT
        ADD R1, R1, #1
        BRnzp PUTS_NEXT
PUTS_DONE
        LDR R1, R6, #0
        ADD R6, R6, #1
        LDR R0, R6, #0
        ADD R6, R6, #1
        RTI

; x031F TRAP x23 IN: prompt, read a key, echo it and a newline; R0 = the key.
TRAP_IN
        LEA R0, IN_PROMPT
        PUTS
        GETC
        OUT
        ADD R6, R6, #-1
        STR R0, R6, #0
        AND R0, R0, #0
        ADD R0, R0, #10
        OUT
        LDR R0, R6, #0
        ADD R6, R6, #1
        RTI
IN_PROMPT       .STRINGZ "\nInput a character> "

; x0340 TRAP x24 PUTSP: prints the packed string at R0, low byte first, stopping at the first
; zero byte (lc3tools does not wait for a zero word). The high byte is moved down by eight
; left shifts of the word into R0, one bit at a time: the LC-3 has no right shift.
TRAP_PUTSP
        ADD R6, R6, #-1
        STR R0, R6, #0
        ADD R6, R6, #-1
        STR R1, R6, #0
        ADD R6, R6, #-1
        STR R2, R6, #0
        ADD R6, R6, #-1
        STR R3, R6, #0
        ADD R1, R0, #0
PUTSP_WORD
        LDR R2, R1, #0
        LD R0, PUTSP_LOW
        AND R0, R0, R2
        BRz PUTSP_DONE
        OUT
        AND R0, R0, #0
        ADD R3, R0, #8
PUTSP_SHIFT
        ADD R0, R0, R0
        ADD R2, R2, #0
        BRzp PUTSP_ZERO_BIT
        ADD R0, R0, #1
PUTSP_ZERO_BIT
        ADD R2, R2, R2
        ADD R3, R3, #-1
        BRp PUTSP_SHIFT
        ADD R0, R0, #0
        BRz PUTSP_DONE
        OUT
        ADD R1, R1, #1
        BRnzp PUTSP_WORD
PUTSP_DONE
        LDR R3, R6, #0
        ADD R6, R6, #1
        LDR R2, R6, #0
        ADD R6, R6, #1
        LDR R1, R6, #0
        ADD R6, R6, #1
        LDR R0, R6, #0
        ADD R6, R6, #1
        RTI
PUTSP_LOW       .FILL x00FF

; x0366 TRAP x25 HALT: prints the banner and clears MCR[15], which stops the clock (R0 and R1
; are not kept, as in lc3tools). If a debugger starts the clock again, it halts again.
TRAP_HALT
        LEA R0, HALT_TEXT
        PUTS
        LDI R0, HALT_MCR
        LD R1, HALT_CLOCK_OFF
        AND R0, R0, R1
        STI R0, HALT_MCR
        BRnzp TRAP_HALT
HALT_MCR        .FILL xFFFE
HALT_CLOCK_OFF  .FILL x7FFF
HALT_TEXT       .STRINGZ "\n\n--- Halting the LC-3 ---\n\n"

; x038C Every trap vector without a routine: the banner, then HALT.
TRAP_BAD
        LEA R0, BAD_TRAP_TEXT
        PUTS
        HALT
BAD_TRAP_TEXT   .STRINGZ "\n\n--- Undefined trap executed ---\n\n"

; Exceptions: the banner, then HALT. The saved PC is the faulting instruction's, so returning
; would only fault again.
EXC_PRIVILEGE
        LEA R0, PRIVILEGE_TEXT
        PUTS
        HALT
PRIVILEGE_TEXT  .STRINGZ "\n\n--- Privilege violation ---\n\n"
EXC_ILLEGAL
        LEA R0, ILLEGAL_TEXT
        PUTS
        HALT
ILLEGAL_TEXT    .STRINGZ "\n\n--- Illegal opcode ---\n\n"
EXC_ACCESS
        LEA R0, ACCESS_TEXT
        PUTS
        HALT
ACCESS_TEXT     .STRINGZ "\n\n--- Access violation---\n\n"

; Every other interrupt vector: return at once.
INT_BAD
        RTI
