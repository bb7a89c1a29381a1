; Constants every OS image uses: device register addresses and masks. os.rs assembles this block
; between the edition's shared routines and the profile's file, within PC-relative reach of both.
KBSR_AT         .FILL xFE00
KBDR_AT         .FILL xFE02
DSR_AT          .FILL xFE04
DDR_AT          .FILL xFE06
MCR_AT          .FILL xFFFE
CLOCK_OFF       .FILL x7FFF
LOW_BYTE        .FILL x00FF
BIT_8           .FILL x0100
NEWLINE         .FILL x000A
