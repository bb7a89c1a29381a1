; Keyboard-interrupt lab, the user program (x3000).
;
; Installs the keyboard interrupt service routine of isr.asm (x1500) in the interrupt vector
; table (entry x80, at x0180), turns on KBSR's interrupt-enable bit (bit 14), then prints a
; banner again and again, waiting a while between two banners, while the user types. Each key
; interrupts it: the service routine echoes a letter ten times on a line of its own and
; ignores other keys, then the banner goes on where it was interrupted. After ROUNDS banners the
; program turns interrupts off again and halts.
;
; The program keeps its stack (R6) at xFE00 and down, above the supervisor stack (x3000 and
; down) that interrupts push onto: gdb orders frames by their stack addresses, so a backtrace
; from a subroutine of the interrupt routine reaches the interrupted program only when the
; user stack lies above the supervisor stack.
;
; Run it with the service routine loaded beside it (two files, each at its own .ORIG; the
; program starts at this file's origin because it is named last):
;   asmdbg run programs/lc3/interrupts/isr.asm programs/lc3/interrupts/user_program.asm
; Under --profile lc3tools add --ignore-privilege: the program writes the vector table and
; KBSR from user mode, which lc3tools otherwise stops with an access violation.
; For a run that goes the same way every time, let the keys arrive on a schedule:
;   ... --input keys.txt --key-every 3000

        .ORIG x3000
MAIN    LD R6, USER_SP      ; the program's own stack, above the supervisor stack
        LD R0, ISR_ADDR     ; M[x0180] <- x1500: the keyboard's interrupt vector
        STI R0, IVT_KBD
        LD R0, KB_IE        ; KBSR[14] <- 1: a key now interrupts
        STI R0, KBSR_PTR
        LD R3, ROUNDS       ; banners left to print
LOOP    LEA R0, BANNER
        PUTS
        JSR DELAY
        ADD R3, R3, #-1
        BRp LOOP
        AND R0, R0, #0      ; interrupts off again before halting
        STI R0, KBSR_PTR
        HALT

; Waits about 2 * PAUSE instructions (the banner should not scroll too fast to type at).
DELAY   ST R1, SAVE_R1
        LD R1, PAUSE
D_LOOP  ADD R1, R1, #-1
        BRp D_LOOP
        LD R1, SAVE_R1
        RET

USER_SP  .FILL xFE00
ISR_ADDR .FILL x1500
IVT_KBD  .FILL x0180
KBSR_PTR .FILL xFE00
KB_IE    .FILL x4000
ROUNDS   .FILL #8
PAUSE    .FILL #1500
SAVE_R1  .BLKW 1
BANNER   .STRINGZ "~~~ Type a letter; it comes back ten times. ~~~\n"
        .END
