; =============================================================================================
; sketch.asm -- an etch-a-sketch on PennSim's video display, for the LC-3
; =============================================================================================
;
; What it is
;   A pen starts in the middle of the screen and draws a line as it moves: every key moves
;   it one pixel and paints the pixel it lands on in the pen's colour. A grey frame marks
;   the edge of the screen; the pen stays inside it.
;
;     w a s d    move the pen up, left, down, right
;     c          next colour: red, orange, yellow, green, cyan, blue, magenta, white (then red)
;     x          clear the screen (the pen stays where it is)
;     q          quit (HALT)
;
;   Other keys are ignored. Nothing is echoed: the picture is the output.
;
; The display (PennSim's video display, as in its manual)
;   128 x 124 pixels, one word per pixel, row-major from xC000 to xFDFF: pixel (x, y) is the
;   word at xC000 + 128 * y + x. A word is 0RRRRRGGGGGBBBBB, five bits per colour.
;
; How to run it
;   asmdbg run programs/lc3/sketch.asm --display                    (type keys; q quits)
;   asmdbg run programs/lc3/sketch.asm --display --keys programs/lc3/sketch.keys \
;       --display-png sketch.png                                    (a scripted drawing)
;   In PennSim: as lc3os.asm and sketch.asm, ld both, continue, type in the console.
;
; How to debug it
;   asmdbg debug programs/lc3/sketch.asm --display, then in gdb-multiarch: watch PEN_X or
;   PEN_COLOUR, continue, and type keys on the console (the keyboard); `monitor display png
;   FILE` writes the picture so far, and reverse-continue goes back to the key before.
;
; Labels that matter
;   PEN_X, PEN_Y    where the pen is: 1-126 and 1-122 (0, 127 and 123 are the frame)
;   PEN_COLOUR      index of the pen's colour in PALETTE (0-7)
;   PALETTE         the eight colours as video words
;
; Registers: R0 the key (GETC), R1-R5 scratch, R7 return addresses (subroutines are leaves).
; =============================================================================================

        .ORIG x3000
MAIN    LEA R0, BANNER
        PUTS
        JSR DRAW_FRAME
        JSR PLOT                ; the pen's first pixel

NEXT_KEY
        GETC                    ; R0 = the key
        LD R1, NEG_Q
        ADD R1, R0, R1
        BRz QUIT
        LD R1, NEG_W
        ADD R1, R0, R1
        BRz MOVE_UP
        LD R1, NEG_A
        ADD R1, R0, R1
        BRz MOVE_LEFT
        LD R1, NEG_S
        ADD R1, R0, R1
        BRz MOVE_DOWN
        LD R1, NEG_D
        ADD R1, R0, R1
        BRz MOVE_RIGHT
        LD R1, NEG_C
        ADD R1, R0, R1
        BRz NEXT_COLOUR
        LD R1, NEG_X
        ADD R1, R0, R1
        BRz CLEAR
        BRnzp NEXT_KEY          ; any other key: nothing

MOVE_UP LD R1, PEN_Y
        ADD R1, R1, #-1
        BRz NEXT_KEY            ; row 0 is the frame
        ST R1, PEN_Y
        BRnzp DRAW
MOVE_LEFT
        LD R1, PEN_X
        ADD R1, R1, #-1
        BRz NEXT_KEY            ; column 0 is the frame
        ST R1, PEN_X
        BRnzp DRAW
MOVE_DOWN
        LD R1, PEN_Y
        ADD R1, R1, #1
        LD R2, NEG_LAST_ROW
        ADD R2, R1, R2
        BRzp NEXT_KEY           ; row 123 is the frame
        ST R1, PEN_Y
        BRnzp DRAW
MOVE_RIGHT
        LD R1, PEN_X
        ADD R1, R1, #1
        LD R2, NEG_LAST_COLUMN
        ADD R2, R1, R2
        BRzp NEXT_KEY           ; column 127 is the frame
        ST R1, PEN_X
        BRnzp DRAW
NEXT_COLOUR
        LD R1, PEN_COLOUR
        ADD R1, R1, #1
        ADD R2, R1, #-8         ; past the last colour: back to the first
        BRn COLOUR_OK
        AND R1, R1, #0
COLOUR_OK
        ST R1, PEN_COLOUR
DRAW    JSR PLOT
        BRnzp NEXT_KEY

CLEAR   LD R1, VIDEO            ; every pixel black
        LD R2, VIDEO_WORDS
        AND R0, R0, #0
CLEAR_LOOP
        STR R0, R1, #0
        ADD R1, R1, #1
        ADD R2, R2, #-1
        BRp CLEAR_LOOP
        JSR DRAW_FRAME
        BRnzp DRAW

QUIT    LEA R0, GOODBYE
        PUTS
        HALT

; ---------------------------------------------------------------------------------------------
; PLOT: paints pixel (PEN_X, PEN_Y) in the colour PALETTE[PEN_COLOUR]. Uses R1-R3.
; ---------------------------------------------------------------------------------------------
PLOT    LD R1, PEN_Y
        ADD R1, R1, R1          ; 128 * y: seven doublings
        ADD R1, R1, R1
        ADD R1, R1, R1
        ADD R1, R1, R1
        ADD R1, R1, R1
        ADD R1, R1, R1
        ADD R1, R1, R1
        LD R2, PEN_X
        ADD R1, R1, R2
        LD R2, VIDEO
        ADD R1, R1, R2          ; R1 = xC000 + 128 * y + x
        LEA R2, PALETTE
        LD R3, PEN_COLOUR
        ADD R2, R2, R3
        LDR R3, R2, #0          ; the pen's colour
        STR R3, R1, #0          ; the pixel
        RET

; ---------------------------------------------------------------------------------------------
; DRAW_FRAME: the grey frame, rows 0 and 123 and columns 0 and 127. Uses R1-R5.
; ---------------------------------------------------------------------------------------------
DRAW_FRAME
        LD R3, FRAME_COLOUR
        LD R1, VIDEO            ; row 0
        LD R2, LAST_ROW_START   ; row 123
        LD R4, ROW_LENGTH
FRAME_ROWS
        STR R3, R1, #0
        STR R3, R2, #0
        ADD R1, R1, #1
        ADD R2, R2, #1
        ADD R4, R4, #-1
        BRp FRAME_ROWS
        LD R1, VIDEO            ; column 0
        LD R2, LAST_COLUMN_TOP  ; column 127
        LD R4, ROWS
        LD R5, ROW_LENGTH
FRAME_COLUMNS
        STR R3, R1, #0
        STR R3, R2, #0
        ADD R1, R1, R5          ; next row
        ADD R2, R2, R5
        ADD R4, R4, #-1
        BRp FRAME_COLUMNS
        RET

; ---------------------------------------------------------------------------------------------
; Data
; ---------------------------------------------------------------------------------------------
PEN_X           .FILL #64
PEN_Y           .FILL #62
PEN_COLOUR      .FILL #0
PALETTE         .FILL x7C00         ; red      11111 00000 00000
                .FILL x7E00         ; orange   11111 10000 00000
                .FILL x7FE0         ; yellow   11111 11111 00000
                .FILL x03E0         ; green    00000 11111 00000
                .FILL x03FF         ; cyan     00000 11111 11111
                .FILL x001F         ; blue     00000 00000 11111
                .FILL x7C1F         ; magenta  11111 00000 11111
                .FILL x7FFF         ; white    11111 11111 11111
FRAME_COLOUR    .FILL x318C         ; grey     01100 01100 01100
VIDEO           .FILL xC000         ; pixel (0, 0)
VIDEO_WORDS     .FILL x3E00         ; 128 * 124 pixels
LAST_ROW_START  .FILL xFD80         ; pixel (0, 123)
LAST_COLUMN_TOP .FILL xC07F         ; pixel (127, 0)
ROW_LENGTH      .FILL #128
ROWS            .FILL #124
NEG_LAST_ROW    .FILL #-123
NEG_LAST_COLUMN .FILL #-127
NEG_W           .FILL #-119         ; 'w'
NEG_A           .FILL #-97          ; 'a'
NEG_S           .FILL #-115         ; 's'
NEG_D           .FILL #-100         ; 'd'
NEG_C           .FILL #-99          ; 'c'
NEG_X           .FILL #-120         ; 'x'
NEG_Q           .FILL #-113         ; 'q'
BANNER          .STRINGZ "Etch-a-sketch: w a s d draw, c changes colour, x clears, q quits\n"
GOODBYE         .STRINGZ "Bye!\n"
        .END
