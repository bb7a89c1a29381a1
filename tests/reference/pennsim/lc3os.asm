; asmdbg's built-in PennSim OS (targets/lc3/src/os/pennsim.asm) as one file, with the
; vector tables asmdbg fills from its labels written out: the OS the PennSim runs of these
; cases load (`as lc3os.asm`), and the first file of the asmdbg runs that give their OS.
; tests/reference_outputs.rs checks that it assembles to the built-in image word for word.
        .ORIG x0000
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_GETC
        .FILL TRAP_OUT
        .FILL TRAP_PUTS
        .FILL TRAP_IN
        .FILL TRAP_PUTSP
        .FILL TRAP_HALT
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL TRAP_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
        .FILL INT_BAD
; Profile `pennsim`: the operating system a PennSim 1.2.5 course hands its students (lc3os.asm),
; as asmdbg's own built-in when no OS file is given: the machine boots here, at x0200, in
; supervisor mode. Written for asmdbg from what that OS does, so that a program's instruction
; count is the same on either: each routine runs as many instructions as the course OS's.
; The vector tables (x0000 traps, x0100 interrupts) are filled by os.rs from the labels below:
; undefined traps go to TRAP_BAD, every interrupt vector to INT_BAD.
;
; The course OS opens x3000-xBFFF to user code (MPR x0FF8) and its trap routines return with
; RET, so a program that has made a TRAP goes on in supervisor mode (and may then touch the
; video memory at xC000); that is kept.

BOOT            LD R0, PROTECTED_PAGES  ; user code may touch the pages the MPR opens
                STI R0, MPR_ADDR
                LD R0, TIMER_MS         ; the timer goes off every TIMER_MS
                STI R0, TMI_ADDR
                LD R7, PROGRAM_START    ; into the program, in user mode
                JMPT R7

KBSR_ADDR       .FILL xFE00
KBDR_ADDR       .FILL xFE02
DSR_ADDR        .FILL xFE04
DDR_ADDR        .FILL xFE06
TMI_ADDR        .FILL xFE0A
MPR_ADDR        .FILL xFE12
MCR_ADDR        .FILL xFFFE
PROTECTED_PAGES .FILL x0FF8             ; pages 3 to 11: x3000-xBFFF
TIMER_MS        .FILL #40
PROGRAM_START   .FILL x3000
CLOCK_OFF       .FILL x7FFF             ; the MCR without its clock-enable bit
LOW_BYTE        .FILL x00FF

; Registers the routines preserve, kept in memory (the routines use no stack).
KEEP_R0         .BLKW 1
KEEP_R1         .BLKW 1
KEEP_R2         .BLKW 1
KEEP_R3         .BLKW 1
KEEP_R7         .BLKW 1
OUT_KEEP_R1     .BLKW 1
IN_KEEP_R7      .BLKW 1

; GETC: waits for a key; R0 = the key.
TRAP_GETC       LDI R0, KBSR_ADDR
                BRzp TRAP_GETC
                LDI R0, KBDR_ADDR
                RET

; OUT: prints the character in R0 once the display is ready.
TRAP_OUT        ST R1, OUT_KEEP_R1
OUT_READY       LDI R1, DSR_ADDR
                BRzp OUT_READY
                STI R0, DDR_ADDR
                LD R1, OUT_KEEP_R1
                RET

; PUTS: prints the string at R0, one character per word, up to a zero word.
TRAP_PUTS       ST R0, KEEP_R0
                ST R1, KEEP_R1
                ST R7, KEEP_R7
                ADD R1, R0, #0
PUTS_NEXT       LDR R0, R1, #0
                BRz PUTS_END
                OUT
                ADD R1, R1, #1
                BRnzp PUTS_NEXT
PUTS_END        LD R0, KEEP_R0
                LD R1, KEEP_R1
                LD R7, KEEP_R7
                RET

; IN: prompts, waits for a key, echoes it and a newline; R0 = the key.
TRAP_IN         ST R7, IN_KEEP_R7
                LEA R0, IN_PROMPT
                PUTS
                GETC
                OUT
                ST R0, KEEP_R0
                AND R0, R0, #0
                ADD R0, R0, #10
                OUT
                LD R0, KEEP_R0
                LD R7, IN_KEEP_R7
                RET

; PUTSP: prints the string at R0 packed two characters a word, low byte first; stops at the
; first zero byte (not only at a zero word).
TRAP_PUTSP      ST R0, KEEP_R0
                ST R1, KEEP_R1
                ST R2, KEEP_R2
                ST R3, KEEP_R3
                ST R7, KEEP_R7
                ADD R1, R0, #0
PUTSP_WORD      LDR R2, R1, #0
                LD R0, LOW_BYTE
                AND R0, R0, R2
                BRz PUTSP_END
                OUT
                AND R0, R0, #0          ; the high byte: R2's top 8 bits rotated into R0
                ADD R3, R0, #8
PUTSP_BIT       ADD R0, R0, R0
                ADD R2, R2, #0
                BRzp PUTSP_ZERO
                ADD R0, R0, #1
PUTSP_ZERO      ADD R2, R2, R2
                ADD R3, R3, #-1
                BRp PUTSP_BIT
                ADD R0, R0, #0
                BRz PUTSP_END
                OUT
                ADD R1, R1, #1
                BRnzp PUTSP_WORD
PUTSP_END       LD R0, KEEP_R0
                LD R1, KEEP_R1
                LD R2, KEEP_R2
                LD R3, KEEP_R3
                LD R7, KEEP_R7
                RET

; HALT: clears the MCR's clock bit, which stops the machine; if it is started again, it boots.
TRAP_HALT       LDI R0, MCR_ADDR
                LD R1, CLOCK_OFF
                AND R0, R0, R1
                STI R0, MCR_ADDR
                BRnzp BOOT

; A trap without a routine halts.
TRAP_BAD        BRnzp TRAP_HALT

; No device interrupts on this machine; a vector taken anyway returns.
INT_BAD         RTI

IN_PROMPT       .STRINGZ "\nInput a character> "

        .END
