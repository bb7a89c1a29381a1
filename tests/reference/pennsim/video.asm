; The video memory at xC000: a store in user mode before any TRAP is denied by the course OS's
; MPR (video_denied.cmd); after a TRAP (the OS returns with RET) the program runs in supervisor
; mode and paints (video.cmd, the pixels read back with --peek, PennSim: list).
        .ORIG x3000
        LD R0, COLOR
        LD R1, SCREEN
        LD R2, FIRST
        BRz PAINT
        STR R0, R1, #0          ; user mode: denied
PAINT   LEA R0, TEXT
        PUTS
        LD R0, COLOR
        STR R0, R1, #0
        STR R0, R1, #1
        ADD R0, R0, #-1
        STR R0, R1, #2
        LD R3, LAST
        STR R0, R3, #0
        HALT
COLOR   .FILL x7C00
SCREEN  .FILL xC000
LAST    .FILL xFDFF
FIRST   .FILL #0
TEXT    .STRINGZ "paint\n"
        .END
