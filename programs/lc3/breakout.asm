; =============================================================================================
; breakout.asm -- Breakout on PennSim's video display, for the LC-3: a real-time game
; =============================================================================================
;
; What it is
;   A ball bounces around a walled court and breaks the bricks it hits; you keep it in play
;   with a paddle at the bottom. The ball moves every frame whether or not a key is pressed:
;   the game looks at the keyboard once a frame (KBSR) and goes on when no key is there.
;
;     a d    move the paddle left, right (4 pixels a key; hold the key down to slide it)
;     q      quit
;
;   Each ball waits on the middle of the paddle for 150 frames (3 seconds at 50 frames a
;   second), moving with it, then goes up to the right. Where the ball meets the paddle
;   steers it: the left half sends it up to the left, the right half up to the right. A ball
;   that falls past the paddle costs one of the three lives (the white marks at the top
;   left). The game ends when the lives are gone, when all 40 bricks are broken, or when the
;   time runs out (the green bar at the top right loses a pixel column every 48 frames:
;   about 4,000 frames in all).
;   The console then says how it ended and how many bricks were broken.
;
; The display (PennSim's video display, as in its manual)
;   128 x 124 pixels, one word per pixel, row-major from xC000 to xFDFF: pixel (x, y) is the
;   word at xC000 + 128 * y + x. A word is 0RRRRRGGGGGBBBBB, five bits per colour.
;
; Pace
;   The LC-3 has no clock, so a frame is counted in instructions: about 2,400 of them (most
;   in WAIT, a delay loop of DELAY rounds). A simulator at full speed plays a game in a blink;
;   held to about 120,000 instructions a second it plays at some 50 frames a second.
;
; How to run it
;   asmdbg run programs/lc3/breakout.asm --display --speed 120k     (a and d; q quits)
;   asmdbg run programs/lc3/breakout.asm --display --keys programs/lc3/breakout.keys \
;       --display-png breakout.png                                (a scripted game, at once)
;   In PennSim: as lc3os.asm and breakout.asm, ld both, continue, type in the console; make
;   DELAY larger or smaller until the ball moves at a pace you can follow.
;
; How to debug it
;   asmdbg debug programs/lc3/breakout.asm --display, then in gdb-multiarch: watch LIVES or
;   BRICKS_LEFT, continue, type a and d on the console; `monitor display png FILE` writes the
;   picture so far, and reverse-continue goes back to the frame before the ball was lost or
;   the brick broken, the ball where it was.
;
; How it works
;   A frame: look at the keyboard (LDI KBSR; a key moves the paddle or quits), erase the
;   ball, draw the paddle, move the ball (or keep it on the paddle while it waits), draw it,
;   shrink the time bar every 48th frame, wait. The ball is 2 x 2 pixels and moves one pixel
;   across and one up or down a frame.
;   It is moved across first, then up or down, each time looking at the colour of the
;   pixels it would move into: black is free; anything else is in the way and the ball
;   bounces (turns round on that axis and stays). What it ran into is told by its colour:
;   the grey wall, the cyan paddle, or a brick (any other colour), which is erased -- found
;   from the pixel hit by walking left and up while the colour stays the brick's.
;
; Labels that matter
;   BALL_X, BALL_Y     the ball's top-left pixel; BALL_DX, BALL_DY its step (1 or -1)
;   PADDLE_X           the paddle's leftmost pixel (2-110); it is 16 wide, on rows 116-117
;   LIVES, BRICKS_LEFT, SCORE (bricks broken), TIME_LEFT (pixels left in the time bar)
;   READY_LEFT         frames the new ball still waits on the paddle
;   FRAMES             frames played; DELAY the rounds of WAIT in each frame
;
; Registers: state lives in memory; routines take arguments in R0-R5 as their comments say
; and keep R7 in a word of their own when they call others.
; =============================================================================================

        .ORIG x3000
MAIN    LD R0, BANNER_AT
        PUTS
        JSR DRAW_COURT
        JSR DRAW_BRICKS
        JSR SERVE

FRAME   LDI R0, KBSR            ; a key? (once a frame: no key, no wait)
        BRzp NO_KEY
        LDI R0, KBDR
        LD R1, NEG_Q
        ADD R1, R0, R1
        BRz QUIT
        LD R1, NEG_A
        ADD R1, R0, R1
        BRz KEY_LEFT
        LD R1, NEG_D
        ADD R1, R0, R1
        BRz KEY_RIGHT
        BRnzp NO_KEY            ; any other key: nothing
KEY_LEFT
        LD R1, PADDLE_X
        ADD R1, R1, #-4
        ADD R2, R1, #-2         ; not past the left wall (x 2)
        BRzp PADDLE_MOVES
        AND R1, R1, #0
        ADD R1, R1, #2
        BRnzp PADDLE_MOVES
KEY_RIGHT
        LD R1, PADDLE_X
        ADD R1, R1, #4
        LD R2, NEG_PADDLE_MAX   ; not past the right wall (x 110 + 15 = 125)
        ADD R2, R1, R2
        BRnz PADDLE_MOVES
        LD R1, PADDLE_MAX
PADDLE_MOVES
        ST R1, NEW_PADDLE_X
        AND R0, R0, #0          ; the paddle where it was: black
        JSR PAINT_PADDLE
        LD R1, NEW_PADDLE_X
        ST R1, PADDLE_X         ; MOVE_BALL draws it where it is now

NO_KEY  LD R0, READY_LEFT        ; a new ball waits on the paddle a while
        BRp HOLD
        JSR MOVE_BALL
        ADD R0, R0, #0
        BRz BALL_IN_PLAY
        JSR LOSE_LIFE           ; the ball fell past the paddle
        LD R0, LIVES
        BRz OUT_OF_LIVES
        JSR SERVE
        BRnzp BALL_IN_PLAY
HOLD    ADD R0, R0, #-1
        ST R0, READY_LEFT
        JSR HOLD_BALL
BALL_IN_PLAY
        LD R0, BRICKS_LEFT
        BRz CLEARED
        JSR TICK
        LD R0, TIME_LEFT
        BRz TIME_UP
        LD R1, DELAY            ; the rest of the frame: wait
WAIT    ADD R1, R1, #-1
        BRp WAIT
        BRnzp FRAME

OUT_OF_LIVES
        LD R0, LOST_AT
        BRnzp THE_END
CLEARED LD R0, CLEARED_AT
        BRnzp THE_END
TIME_UP LD R0, TIME_AT
        BRnzp THE_END
QUIT    LD R0, QUIT_AT
THE_END PUTS
        JSR PRINT_SCORE
        HALT

KBSR            .FILL xFE00
KBDR            .FILL xFE02
NEG_Q           .FILL #-113         ; 'q'
NEG_A           .FILL #-97          ; 'a'
NEG_D           .FILL #-100         ; 'd'
PADDLE_MAX      .FILL #110
NEG_PADDLE_MAX  .FILL #-110
NEW_PADDLE_X    .FILL #0
BANNER_AT       .FILL BANNER
LOST_AT         .FILL LOST_TEXT
CLEARED_AT      .FILL CLEARED_TEXT
TIME_AT         .FILL TIME_TEXT
QUIT_AT         .FILL QUIT_TEXT

; ---------------------------------------------------------------------------------------------
; MOVE_BALL: one frame of the ball: erase it, draw the paddle, move it across then up or
; down (bouncing off what is in the way, breaking bricks), draw it. Returns R0 = 1 when it
; fell past the paddle (it is not drawn then), else 0. Uses R0-R6.
; ---------------------------------------------------------------------------------------------
MOVE_BALL
        ST R7, MOVE_R7
        AND R0, R0, #0
        JSR PAINT_BALL          ; erase it
        LD R0, PADDLE_COLOUR
        JSR PAINT_PADDLE

        LD R1, BALL_X           ; across: the column it moves into
        LD R2, BALL_DX
        ADD R1, R1, R2
        ST R1, NEW_X
        ADD R2, R2, #0
        BRn LEAD_X              ; moving left: its new left column leads
        ADD R1, R1, #1          ; moving right: its new right column
LEAD_X  LD R2, BALL_Y
        JSR PIXEL_ADDRESS
        LDR R0, R3, #0          ; (lead, y)
        BRnp BOUNCE_X
        LD R4, ROW_LENGTH
        ADD R3, R3, R4
        LDR R0, R3, #0          ; (lead, y + 1)
        BRz UP_DOWN
BOUNCE_X
        JSR HIT
        LD R1, BALL_DX
        NOT R1, R1
        ADD R1, R1, #1
        ST R1, BALL_DX
        LD R1, BALL_X           ; it stays in its column this frame
        ST R1, NEW_X

UP_DOWN LD R2, BALL_Y           ; up or down: the row it moves into, at its new column
        LD R1, BALL_DY
        ADD R2, R2, R1
        ST R2, NEW_Y
        ADD R1, R1, #0
        BRn LEAD_Y
        ADD R2, R2, #1
LEAD_Y  LD R1, NEW_X
        JSR PIXEL_ADDRESS
        LDR R0, R3, #0          ; (x, lead)
        BRnp BOUNCE_Y
        ADD R3, R3, #1
        LDR R0, R3, #0          ; (x + 1, lead)
        BRz MOVED
BOUNCE_Y
        JSR HIT
        LD R1, BALL_DY
        NOT R1, R1
        ADD R1, R1, #1
        ST R1, BALL_DY
        LD R1, BALL_Y
        ST R1, NEW_Y
        LD R1, PADDLE_COLOUR    ; off the paddle: its half steers the ball
        NOT R1, R1
        ADD R1, R1, #1
        ADD R1, R0, R1
        BRnp MOVED
        LD R1, PADDLE_X         ; R1 = NEW_X - (PADDLE_X + 7): 0 when the ball is on the
        NOT R1, R1              ; paddle's middle pixels (7 and 8), negative left of them
        ADD R1, R1, #-6
        LD R2, NEW_X
        ADD R1, R1, R2
        AND R2, R2, #0
        ADD R2, R2, #1
        ADD R1, R1, #0
        BRzp STEER
        ADD R2, R2, #-2
STEER   ST R2, BALL_DX

MOVED   LD R1, NEW_X
        ST R1, BALL_X
        LD R2, NEW_Y
        ST R2, BALL_Y
        LD R3, NEG_LOST_Y       ; at the bottom row: lost
        ADD R3, R2, R3
        BRzp BALL_LOST
        LD R0, BALL_COLOUR
        JSR PAINT_BALL
        AND R0, R0, #0
        BRnzp MOVE_DONE
BALL_LOST
        AND R0, R0, #0
        ADD R0, R0, #1
MOVE_DONE
        LD R7, MOVE_R7
        RET

MOVE_R7         .FILL #0
NEW_X           .FILL #0
NEW_Y           .FILL #0
NEG_LOST_Y      .FILL #-122         ; the ball's top row when its lower row is the last (123)

; ---------------------------------------------------------------------------------------------
; HIT: the ball ran into the pixel at address R3, of colour R0. A brick's colour (not the
; wall's, not the paddle's) breaks that brick: the brick is erased, SCORE goes up and
; BRICKS_LEFT down. Returns R0 unchanged. Uses R3-R7.
; ---------------------------------------------------------------------------------------------
HIT     ST R7, HIT_R7
        ST R0, HIT_COLOUR
        LD R4, WALL_COLOUR
        NOT R4, R4
        ADD R4, R4, #1
        ADD R4, R0, R4
        BRz HIT_DONE
        LD R4, PADDLE_COLOUR
        NOT R4, R4
        ADD R4, R4, #1
        ADD R4, R0, R4
        BRz HIT_DONE
        NOT R5, R0              ; R5 = -colour
        ADD R5, R5, #1
FIND_LEFT
        LDR R4, R3, #-1         ; left while the pixel to the left is the brick's
        ADD R4, R4, R5
        BRnp FIND_TOP
        ADD R3, R3, #-1
        BRnzp FIND_LEFT
FIND_TOP
        LD R6, NEG_ROW_LENGTH   ; then up while the pixel above is
        ADD R4, R3, R6
        LDR R4, R4, #0
        ADD R4, R4, R5
        BRnp ERASE_BRICK
        ADD R3, R3, R6
        BRnzp FIND_TOP
ERASE_BRICK
        AND R0, R0, #0          ; R3: its top-left pixel
        LD R4, BRICK_WIDTH
        LD R5, BRICK_HEIGHT
        JSR FILL_AT
        LD R4, SCORE
        ADD R4, R4, #1
        ST R4, SCORE
        LD R4, BRICKS_LEFT
        ADD R4, R4, #-1
        ST R4, BRICKS_LEFT
HIT_DONE
        LD R0, HIT_COLOUR
        LD R7, HIT_R7
        RET

HIT_COLOUR      .FILL #0
HIT_R7          .FILL #0

; ---------------------------------------------------------------------------------------------
; The game's state and constants
; ---------------------------------------------------------------------------------------------
BALL_X          .FILL #0
BALL_Y          .FILL #0
BALL_DX         .FILL #1
BALL_DY         .FILL #-1
PADDLE_X        .FILL #56           ; the middle: (2 + 125 - 15) / 2
LIVES           .FILL #3
READY_LEFT      .FILL #0            ; frames the new ball still waits on the paddle
BRICKS_LEFT     .FILL #40
SCORE           .FILL #0
TIME_LEFT       .FILL #84           ; pixels of the time bar, x 40-123
FRAMES          .FILL #0
DELAY           .FILL #1000         ; rounds of WAIT a frame (two instructions each)
WALL_COLOUR     .FILL x4210         ; grey     10000 10000 10000
PADDLE_COLOUR   .FILL x03FF         ; cyan     00000 11111 11111
BALL_COLOUR     .FILL x7FFF         ; white    11111 11111 11111
LIFE_COLOUR     .FILL x7FFF         ; white
TIME_COLOUR     .FILL x03E0         ; green    00000 11111 00000
BRICK_WIDTH     .FILL #11
BRICK_HEIGHT    .FILL #4
VIDEO           .FILL xC000         ; pixel (0, 0)
ROW_LENGTH      .FILL #128
NEG_ROW_LENGTH  .FILL #-128

; ---------------------------------------------------------------------------------------------
; SERVE: a new ball on the middle of the paddle, to go up to the right once it has waited
; there READY_FRAMES frames (HOLD_BALL keeps it on the paddle while it waits).
; ---------------------------------------------------------------------------------------------
SERVE   LD R1, READY_FRAMES
        ST R1, READY_LEFT
        LD R1, PADDLE_X
        ADD R1, R1, #7
        ST R1, BALL_X
        LD R1, SERVE_Y
        ST R1, BALL_Y
        AND R1, R1, #0
        ADD R1, R1, #1
        ST R1, BALL_DX
        ADD R1, R1, #-2
        ST R1, BALL_DY
        RET

SERVE_Y         .FILL #113          ; two rows above the paddle's top (116)
READY_FRAMES    .FILL #150

; ---------------------------------------------------------------------------------------------
; HOLD_BALL: a frame of a waiting ball: it moves with the paddle, on its middle. Uses R0-R7.
; ---------------------------------------------------------------------------------------------
HOLD_BALL
        ST R7, HOLD_R7
        AND R0, R0, #0
        JSR PAINT_BALL          ; erase it
        LD R0, PADDLE_COLOUR
        JSR PAINT_PADDLE
        LD R1, PADDLE_X
        ADD R1, R1, #7
        ST R1, BALL_X
        LD R0, BALL_COLOUR
        JSR PAINT_BALL
        LD R7, HOLD_R7
        RET

HOLD_R7         .FILL #0

; ---------------------------------------------------------------------------------------------
; LOSE_LIFE: one life less; its mark at the top left turns grey. Uses R0-R7.
; ---------------------------------------------------------------------------------------------
LOSE_LIFE
        ST R7, LOSE_R7
        LD R1, LIVES
        ADD R1, R1, #-1
        ST R1, LIVES
        ADD R2, R1, R1          ; the mark of life LIVES: x = 4 + 10 * LIVES
        ADD R1, R2, R2
        ADD R1, R1, R1
        ADD R1, R1, R2
        ADD R1, R1, #4
        AND R2, R2, #0
        ADD R2, R2, #2
        AND R4, R4, #0
        ADD R4, R4, #6
        AND R5, R5, #0
        ADD R5, R5, #4
        LD R0, WALL_COLOUR
        JSR FILL_RECT
        LD R7, LOSE_R7
        RET

LOSE_R7         .FILL #0

; ---------------------------------------------------------------------------------------------
; TICK: counts the frame; every 48th frame the time bar's last column turns grey and
; TIME_LEFT goes down. Uses R0-R3.
; ---------------------------------------------------------------------------------------------
TICK    LD R0, FRAMES
        ADD R0, R0, #1
        ST R0, FRAMES
        LD R0, TICK_COUNT
        ADD R0, R0, #-1
        ST R0, TICK_COUNT
        BRp TICK_DONE
        LD R0, FRAMES_PER_TICK
        ST R0, TICK_COUNT
        LD R1, TIME_LEFT
        ADD R1, R1, #-1
        ST R1, TIME_LEFT
        LD R2, TIME_BAR         ; its address: (TIME_BAR_X + TIME_LEFT, 2)
        ADD R2, R2, R1
        LD R0, WALL_COLOUR
        LD R3, ROW_LENGTH
        STR R0, R2, #0          ; rows 2 to 5
        ADD R2, R2, R3
        STR R0, R2, #0
        ADD R2, R2, R3
        STR R0, R2, #0
        ADD R2, R2, R3
        STR R0, R2, #0
TICK_DONE
        RET

TICK_COUNT      .FILL #48
FRAMES_PER_TICK .FILL #48
TIME_BAR        .FILL xC128         ; pixel (40, 2)

; ---------------------------------------------------------------------------------------------
; PAINT_BALL: the ball's 2 x 2 pixels in colour R0. PAINT_PADDLE: the paddle's 16 x 2, in
; colour R0. Both use R1-R7.
; ---------------------------------------------------------------------------------------------
PAINT_BALL
        ST R7, PAINT_R7
        LD R1, BALL_X
        LD R2, BALL_Y
        AND R4, R4, #0
        ADD R4, R4, #2
        AND R5, R5, #0
        ADD R5, R5, #2
        JSR FILL_RECT
        LD R7, PAINT_R7
        RET
PAINT_PADDLE
        ST R7, PAINT_R7
        LD R1, PADDLE_X
        LD R2, PADDLE_Y
        LD R4, PADDLE_WIDTH
        AND R5, R5, #0
        ADD R5, R5, #2
        JSR FILL_RECT
        LD R7, PAINT_R7
        RET

PAINT_R7        .FILL #0
PADDLE_Y        .FILL #116
PADDLE_WIDTH    .FILL #16

; ---------------------------------------------------------------------------------------------
; DRAW_COURT: the grey walls (rows 0-7 at the top, columns 0-1 and 126-127 at the sides; the
; bottom is open), the three lives' white marks and the green time bar in the top wall.
; ---------------------------------------------------------------------------------------------
DRAW_COURT
        ST R7, COURT_R7
        LD R0, WALL_COLOUR
        AND R1, R1, #0          ; the top
        AND R2, R2, #0
        LD R4, ROW_LENGTH
        AND R5, R5, #0
        ADD R5, R5, #8
        JSR FILL_RECT
        AND R1, R1, #0          ; the left side
        AND R4, R4, #0
        ADD R4, R4, #2
        LD R5, ROWS
        JSR FILL_RECT
        LD R1, RIGHT_WALL_X     ; the right side
        LD R5, ROWS
        JSR FILL_RECT
        LD R0, LIFE_COLOUR      ; lives: 6 x 4 marks at x 4, 14, 24 on rows 2-5
        AND R1, R1, #0
        ADD R1, R1, #4
        AND R2, R2, #0
        ADD R2, R2, #2
        AND R4, R4, #0
        ADD R4, R4, #6
        LD R3, LIVES
        ST R3, COURT_COUNT
LIFE_MARK
        AND R5, R5, #0
        ADD R5, R5, #4
        JSR FILL_RECT
        ADD R1, R1, #10
        LD R3, COURT_COUNT
        ADD R3, R3, #-1
        ST R3, COURT_COUNT
        BRp LIFE_MARK
        LD R0, TIME_COLOUR      ; the time bar from x 40, TIME_LEFT pixels long
        LD R1, TIME_BAR_X
        LD R4, TIME_LEFT
        AND R5, R5, #0
        ADD R5, R5, #4
        JSR FILL_RECT
        LD R7, COURT_R7
        RET

COURT_R7        .FILL #0
COURT_COUNT     .FILL #0
RIGHT_WALL_X    .FILL #126
TIME_BAR_X      .FILL #40
ROWS            .FILL #124

; ---------------------------------------------------------------------------------------------
; DRAW_BRICKS: 4 rows of 10 bricks, 11 x 4 pixels with a black pixel between them, from
; (4, 16); one colour a row.
; ---------------------------------------------------------------------------------------------
DRAW_BRICKS
        ST R7, BRICKS_R7
        LEA R3, BRICK_COLOURS
        ST R3, BRICK_ROW_COLOUR
        LD R2, BRICK_TOP
BRICK_ROW
        AND R1, R1, #0
        ADD R1, R1, #4
        LD R3, BRICKS_PER_ROW
        ST R3, BRICK_COUNT
ONE_BRICK
        LDI R0, BRICK_ROW_COLOUR
        LD R4, BRICK_WIDTH
        LD R5, BRICK_HEIGHT
        JSR FILL_RECT
        ADD R1, R1, #12
        LD R3, BRICK_COUNT
        ADD R3, R3, #-1
        ST R3, BRICK_COUNT
        BRp ONE_BRICK
        ADD R2, R2, #5          ; the next row
        LD R3, BRICK_ROW_COLOUR
        ADD R3, R3, #1
        ST R3, BRICK_ROW_COLOUR
        LD R4, BRICK_BOTTOM
        ADD R4, R2, R4
        BRn BRICK_ROW
        LD R7, BRICKS_R7
        RET

BRICKS_R7       .FILL #0
BRICK_COUNT     .FILL #0
BRICK_ROW_COLOUR .FILL #0           ; the address of this row's colour
BRICK_TOP       .FILL #16
BRICK_BOTTOM    .FILL #-36          ; below the fourth row (16 + 4 * 5)
BRICKS_PER_ROW  .FILL #10
BRICK_COLOURS   .FILL x7C00         ; red      11111 00000 00000
                .FILL x7E00         ; orange   11111 10000 00000
                .FILL x7FE0         ; yellow   11111 11111 00000
                .FILL x03E0         ; green    00000 11111 00000

; ---------------------------------------------------------------------------------------------
; FILL_RECT: paints the R4 x R5 pixels (width x height) whose top-left pixel is (R1, R2) in
; colour R0. FILL_AT: the same from the address in R3. Both keep R0-R2 and R4; use R3, R5-R7.
; ---------------------------------------------------------------------------------------------
FILL_RECT
        ST R7, RECT_R7
        JSR PIXEL_ADDRESS
        JSR FILL_AT
        LD R7, RECT_R7
        RET
FILL_AT ST R7, FILL_R7
FILL_ROW
        ADD R6, R3, #0          ; walks the row
        ADD R7, R4, #0          ; pixels left in it
FILL_PIXEL
        STR R0, R6, #0
        ADD R6, R6, #1
        ADD R7, R7, #-1
        BRp FILL_PIXEL
        LD R6, ROW_LENGTH
        ADD R3, R3, R6
        ADD R5, R5, #-1
        BRp FILL_ROW
        LD R7, FILL_R7
        RET

RECT_R7         .FILL #0
FILL_R7         .FILL #0

; ---------------------------------------------------------------------------------------------
; PIXEL_ADDRESS: R3 = the address of pixel (R1, R2), xC000 + 128 * R2 + R1. Uses R6.
; ---------------------------------------------------------------------------------------------
PIXEL_ADDRESS
        ADD R3, R2, R2          ; 128 * y: seven doublings
        ADD R3, R3, R3
        ADD R3, R3, R3
        ADD R3, R3, R3
        ADD R3, R3, R3
        ADD R3, R3, R3
        ADD R3, R3, R3
        ADD R3, R3, R1
        LD R6, VIDEO
        ADD R3, R3, R6
        RET

; ---------------------------------------------------------------------------------------------
; PRINT_SCORE: SCORE in decimal (0-40) and a newline on the console.
; ---------------------------------------------------------------------------------------------
PRINT_SCORE
        ST R7, PRINT_R7
        LD R1, SCORE
        AND R2, R2, #0          ; tens
TENS    ADD R1, R1, #-10
        BRn TENS_DONE
        ADD R2, R2, #1
        BRnzp TENS
TENS_DONE
        ADD R1, R1, #10
        ST R1, ONES_DIGIT
        ADD R2, R2, #0
        BRz ONES
        LD R0, ASCII_ZERO
        ADD R0, R0, R2
        OUT
ONES    LD R0, ASCII_ZERO
        LD R1, ONES_DIGIT
        ADD R0, R0, R1
        OUT
        AND R0, R0, #0
        ADD R0, R0, #10         ; '\n'
        OUT
        LD R7, PRINT_R7
        RET

PRINT_R7        .FILL #0
ONES_DIGIT      .FILL #0
ASCII_ZERO      .FILL #48

; ---------------------------------------------------------------------------------------------
; What the console says
; ---------------------------------------------------------------------------------------------
BANNER          .STRINGZ "Breakout: a and d move the paddle, q quits\n"
LOST_TEXT       .STRINGZ "Game over! Bricks broken: "
CLEARED_TEXT    .STRINGZ "You cleared the wall! Bricks broken: "
TIME_TEXT       .STRINGZ "Time is up! Bricks broken: "
QUIT_TEXT       .STRINGZ "Bye! Bricks broken: "
        .END
