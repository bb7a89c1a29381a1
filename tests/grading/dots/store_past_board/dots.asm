; BROKEN COPY for tests/grade_games.rs (a store past the board): at the end of a game,
; DISPLAY_WINNER calls TERMINATE_ROWS, which rewrites the NUL that ends each board row with an
; off-by-one loop: its eighth store lands 8 words past BOARD_ROW6's NUL, in the code after the
; board. The output and the board are unchanged (the program halts right after), so only a
; guard on the board sees it; a game ended with Q never gets there.
; =============================================================================================
; dots.asm -- Dots and Boxes on a 4x4 grid of dots for the LC-3
;             (EE 306 Programming Assignment 5, ../shared/specs/lc3-dots-and-boxes.md)
; =============================================================================================
;
; What it is
;   Two players take turns drawing a line between two adjacent dots. A player who draws the
;   fourth side of a box (or of two boxes at once) writes his number in it, scores it, and
;   draws again. When all 9 boxes are taken the player with more boxes wins (9 is odd, so
;   there is no tie) and the program HALTs.
;
;   The board is a 7x7 character grid: rows 0-6, columns A-G. Dots '*' sit at even rows and
;   even columns, box centres at odd rows and odd columns, and every other position is a
;   line: '-' between two dots of the same row (even row), '|' between two dots of the same
;   column (odd row).
;
;       ABCDEFG           A move is the column letter then the row digit, e.g. B0 (a '-'
;     0 *-* * *           between A0 and C0) or A1 (a '|' between A0 and A2). Both keys are
;     1 |1|               echoed, then a newline. Typing Q as the first key quits.
;     2 *-* * *
;
; How to run it
;   asmdbg run programs/lc3/dots.asm                 (type moves such as B0; Q quits)
;   asmdbg run programs/lc3/dots.asm --input tests/programs/lc3/dots-game.in
;
; How to debug it
;   asmdbg debug programs/lc3/dots.asm               (prints the gdb port and the console pty)
;   gdb-multiarch -ex 'target remote :1234'          (then e.g. `watch CURRENT_PLAYER`,
;                                                     `continue`, and type moves on the pty)
;   scripts/watch-current-player.gdb does exactly that. In gdb the LC-3 registers are R0-R7
;   and PSR, in capitals (`info registers R0 R1`; a lower-case r0 is a hidden register of the
;   ARM description gdb is given, not the LC-3's R0).
;
; Labels that matter
;   CURRENT_PLAYER    1 or 2: whose turn it is. Only UPDATE_STATE writes it, and only when the
;                     turn passes to the other player (a move that completes a box leaves it
;                     alone), so `watch CURRENT_PLAYER` stops once per change of turn.
;   SCORE_PLAYER_ONE, SCORE_PLAYER_TWO
;                     the boxes each player has taken (UPDATE_STATE adds to them)
;   BOARD_ROW0 .. BOARD_ROW6
;                     the board: seven .STRINGZ rows of 7 characters (8 words apart)
;   BOXES_COMPLETED   where a move's completed boxes are found; FILL_BOX writes the number
;
; What the spec leaves open, and the choices made here
;   The spec's sample runs and starter code are links that are not part of it, so these texts
;   are this program's own, in the style of the other EE 306 labs:
;   * DISPLAY_BOARD prints a blank line, the column letters "  ABCDEFG", each row as its digit,
;     a space and the row's string (7 characters, so rows 1, 3 and 5 end in spaces), and the
;     score line "Player 1: N  Player 2: M".
;   * The prompt is the spec's text followed by one space:
;     "Player 1, input a move <column><row> (or 'Q' to quit): ".
;   * An invalid move prints "Invalid move. Try again." and the same player is asked again.
;   * The end of the game prints "Player N Wins." (no newline: HALT's banner starts with one).
;   * Q is the quit key only as the first key of a move; it is echoed, then a newline, then
;     the program HALTs.
;   * IS_INPUT_VALID also rejects box centres (B1, D3, ...), not just dots: neither is the
;     space between two adjacent dots. Following the spec's hint, row + column is odd (in
;     ASCII) exactly for dots and centres, so one parity test rejects both.
;   * IS_GAME_OVER returns 0 in R3 when the game is over (the spec only names -1 for "not over").
;
; Subroutines and register conventions (from the spec; R0 = row, R1 = column throughout)
;   DISPLAY_PROMPT    prints the prompt for CURRENT_PLAYER.
;   IS_INPUT_VALID    In: R0 = row key ('0'-'6'), R1 = column key ('A'-'G').
;                     Out: R3 = 0 if valid, -1 if invalid.  R0, R1 unchanged.
;   TRANSLATE_MOVE    In: R0, R1 as ASCII.  Out: R0 = row 0-6, R1 = column 0-6.
;   IS_OCCUPIED       In: R0, R1.  Out: R3 = -1 if occupied, 0 if not (a space).  R0, R1 kept.
;   GET_ADDRESS       In: R0, R1.  Out: R3 = address of that position (BOARD_ROW0 + 8*R0 + R1).
;   APPLY_MOVE        In: R0, R1.  Writes '-' (even row) or '|' (odd row).  R0, R1 kept.
;   FILL_BOX          In: R0, R1 = a box centre.  Writes '1' or '2' there.  R0, R1 kept.
;   UPDATE_STATE      In: R0 = boxes just completed (0, 1 or 2).  Adds them to the current
;                     player's score; with none, the turn passes to the other player.
;   IS_GAME_OVER      Out: R3 = -1 if the game is not over, 0 if it is.
;   DISPLAY_BOARD     prints the board and the scores.
;   BOXES_COMPLETED   In: R0, R1 = the move just applied.  Calls FILL_BOX for each box it
;                     completed.  Out: R3 = how many (0, 1 or 2).  R0, R1 kept.
;   Every subroutine saves and restores the registers it uses, except its outputs. R7 is saved
;   too, because TRAPs and JSRs overwrite it.
; =============================================================================================

        .ORIG x3000

; ---------------------------------------------------------------------------------------------
; Main program
; ---------------------------------------------------------------------------------------------
MAIN
        JSR DISPLAY_BOARD
NEXT_MOVE
        JSR DISPLAY_PROMPT
        GETC                        ; the first key: the column, or Q
        OUT
        LD R1, NEG_ASCII_Q
        ADD R1, R0, R1
        BRz QUIT
        ADD R1, R0, #0              ; R1 = column key
        GETC                        ; the second key: the row
        OUT
        ADD R2, R0, #0
        LD R0, NEWLINE
        OUT
        ADD R0, R2, #0              ; R0 = row key
        JSR IS_INPUT_VALID
        ADD R3, R3, #0
        BRn INVALID_MOVE
        JSR TRANSLATE_MOVE          ; R0 = row 0-6, R1 = column 0-6
        JSR IS_OCCUPIED
        ADD R3, R3, #0
        BRn INVALID_MOVE
        JSR APPLY_MOVE
        JSR BOXES_COMPLETED         ; R3 = boxes this move completed
        ADD R0, R3, #0
        JSR UPDATE_STATE
        JSR DISPLAY_BOARD
        JSR IS_GAME_OVER
        ADD R3, R3, #0
        BRn NEXT_MOVE
        JSR DISPLAY_WINNER
        HALT

INVALID_MOVE
        LEA R0, INVALID_MSG
        PUTS
        BRnzp NEXT_MOVE

QUIT
        LD R0, NEWLINE
        OUT
        HALT

; ---------------------------------------------------------------------------------------------
; DISPLAY_BOARD: prints a blank line, the column letters, the seven rows and the scores.
;   In: nothing.  Out: nothing.
; ---------------------------------------------------------------------------------------------
DISPLAY_BOARD
        ST R0, DB_SAVE_R0
        ST R1, DB_SAVE_R1
        ST R2, DB_SAVE_R2
        ST R7, DB_SAVE_R7
        LEA R0, COLUMN_LETTERS      ; "\n  ABCDEFG\n"
        PUTS
        LEA R1, BOARD_ROW0          ; R1 = the row's string
        AND R2, R2, #0              ; R2 = the row number
DB_ROW
        LD R0, ASCII_0
        ADD R0, R0, R2
        OUT                         ; the row digit
        LD R0, ASCII_SPACE
        OUT
        ADD R0, R1, #0
        PUTS                        ; the row itself
        LD R0, NEWLINE
        OUT
        ADD R1, R1, #8              ; the next row's string is 8 words further
        ADD R2, R2, #1
        ADD R0, R2, #-7
        BRn DB_ROW
        LEA R0, SCORE_ONE_MSG       ; "Player 1: "
        PUTS
        LD R0, SCORE_PLAYER_ONE
        LD R1, ASCII_0
        ADD R0, R0, R1
        OUT
        LEA R0, SCORE_TWO_MSG       ; "  Player 2: "
        PUTS
        LD R0, SCORE_PLAYER_TWO
        ADD R0, R0, R1
        OUT
        LD R0, NEWLINE
        OUT
        LD R0, DB_SAVE_R0
        LD R1, DB_SAVE_R1
        LD R2, DB_SAVE_R2
        LD R7, DB_SAVE_R7
        RET

DB_SAVE_R0      .BLKW 1
DB_SAVE_R1      .BLKW 1
DB_SAVE_R2      .BLKW 1
DB_SAVE_R7      .BLKW 1

; ---------------------------------------------------------------------------------------------
; DISPLAY_PROMPT: "Player N, input a move <column><row> (or 'Q' to quit): ".
;   In: CURRENT_PLAYER.  Out: nothing.
; ---------------------------------------------------------------------------------------------
DISPLAY_PROMPT
        ST R0, DP_SAVE_R0
        ST R7, DP_SAVE_R7
        JSR PRINT_PLAYER
        LEA R0, PROMPT_MSG
        PUTS
        LD R0, DP_SAVE_R0
        LD R7, DP_SAVE_R7
        RET

DP_SAVE_R0      .BLKW 1
DP_SAVE_R7      .BLKW 1

; ---------------------------------------------------------------------------------------------
; DISPLAY_WINNER: "Player N Wins." for the player with more boxes.
;   In: SCORE_PLAYER_ONE, SCORE_PLAYER_TWO.  Out: nothing.
; ---------------------------------------------------------------------------------------------
DISPLAY_WINNER
        ST R0, DW_SAVE_R0
        ST R1, DW_SAVE_R1
        ST R7, DW_SAVE_R7
        LEA R0, PLAYER_WORD
        PUTS
        LD R0, SCORE_PLAYER_TWO
        NOT R0, R0
        ADD R0, R0, #1              ; -(player 2's score)
        LD R1, SCORE_PLAYER_ONE
        ADD R1, R1, R0              ; positive: player 1 has more boxes
        LD R0, ASCII_1
        ADD R1, R1, #0
        BRp DW_PRINT
        ADD R0, R0, #1              ; '2'
DW_PRINT
        OUT
        LEA R0, WINS_MSG
        PUTS
        JSR TERMINATE_ROWS          ; the rows end in NUL again (see the end of the file)
        LD R0, DW_SAVE_R0
        LD R1, DW_SAVE_R1
        LD R7, DW_SAVE_R7
        RET

DW_SAVE_R0      .BLKW 1
DW_SAVE_R1      .BLKW 1
DW_SAVE_R7      .BLKW 1

; ---------------------------------------------------------------------------------------------
; PRINT_PLAYER: prints "Player N" for N = CURRENT_PLAYER.
;   In: CURRENT_PLAYER.  Out: nothing.
; ---------------------------------------------------------------------------------------------
PRINT_PLAYER
        ST R0, PP_SAVE_R0
        ST R1, PP_SAVE_R1
        ST R7, PP_SAVE_R7
        LEA R0, PLAYER_WORD
        PUTS
        LD R0, CURRENT_PLAYER
        LD R1, ASCII_0
        ADD R0, R0, R1
        OUT
        LD R0, PP_SAVE_R0
        LD R1, PP_SAVE_R1
        LD R7, PP_SAVE_R7
        RET

PP_SAVE_R0      .BLKW 1
PP_SAVE_R1      .BLKW 1
PP_SAVE_R7      .BLKW 1

; ---------------------------------------------------------------------------------------------
; Messages
; ---------------------------------------------------------------------------------------------
COLUMN_LETTERS  .STRINGZ "\n  ABCDEFG\n"
PLAYER_WORD     .STRINGZ "Player "
PROMPT_MSG      .STRINGZ ", input a move <column><row> (or 'Q' to quit): "
INVALID_MSG     .STRINGZ "Invalid move. Try again.\n"
SCORE_ONE_MSG   .STRINGZ "Player 1: "
SCORE_TWO_MSG   .STRINGZ "  Player 2: "
WINS_MSG        .STRINGZ " Wins."

; ---------------------------------------------------------------------------------------------
; Game state and constants
; ---------------------------------------------------------------------------------------------
NEWLINE         .FILL x000A
NEG_ASCII_Q     .FILL xFFAF         ; -'Q'
ASCII_SPACE     .FILL x0020
NEG_ASCII_SPACE .FILL xFFE0         ; -' '
ASCII_0         .FILL x0030
ASCII_1         .FILL x0031
NEG_ASCII_0     .FILL xFFD0         ; -'0'
NEG_ASCII_A     .FILL xFFBF         ; -'A'
ASCII_DASH      .FILL x002D         ; '-', a line between two dots of one row
ASCII_PIPE      .FILL x007C         ; '|', a line between two dots of one column
ALL_BOXES       .FILL #-9           ; minus the number of boxes on the board

CURRENT_PLAYER    .FILL #1          ; 1 for player 1, 2 for player 2; player 1 goes first
SCORE_PLAYER_ONE  .FILL #0          ; boxes taken by player 1
SCORE_PLAYER_TWO  .FILL #0          ; boxes taken by player 2

; The board: one .STRINGZ per row, 7 characters + NUL = 8 words, so row r starts at
; BOARD_ROW0 + 8*r. Moves overwrite the spaces with '-', '|', '1' or '2'.
BOARD_ROW0      .STRINGZ "* * * *"
BOARD_ROW1      .STRINGZ "       "
BOARD_ROW2      .STRINGZ "* * * *"
BOARD_ROW3      .STRINGZ "       "
BOARD_ROW4      .STRINGZ "* * * *"
BOARD_ROW5      .STRINGZ "       "
BOARD_ROW6      .STRINGZ "* * * *"

; ---------------------------------------------------------------------------------------------
; IS_INPUT_VALID: is (R0, R1) the place of a line?  The row must be '0'-'6', the column
;   'A'-'G', and the position neither a dot nor a box centre: for those two the sum of the
;   ASCII codes of row and column is odd (the spec's hint), for a line it is even.
;   In: R0 = row key, R1 = column key.  Out: R3 = 0 if valid, -1 if invalid.  R0, R1 kept.
; ---------------------------------------------------------------------------------------------
IS_INPUT_VALID
        ST R2, IV_SAVE_R2
        LD R2, NEG_ASCII_0
        ADD R2, R0, R2              ; the row number
        BRn IV_INVALID              ; below '0'
        ADD R2, R2, #-6
        BRp IV_INVALID              ; above '6'
        LD R2, NEG_ASCII_A
        ADD R2, R1, R2              ; the column number
        BRn IV_INVALID              ; below 'A'
        ADD R2, R2, #-6
        BRp IV_INVALID              ; above 'G'
        ADD R2, R0, R1
        AND R2, R2, #1
        BRp IV_INVALID              ; odd sum: a dot '*' or a box centre
        AND R3, R3, #0
        BRnzp IV_DONE
IV_INVALID
        AND R3, R3, #0
        ADD R3, R3, #-1
IV_DONE
        LD R2, IV_SAVE_R2
        RET

IV_SAVE_R2      .BLKW 1

; ---------------------------------------------------------------------------------------------
; TRANSLATE_MOVE: ASCII to numbers: '0'-'6' -> 0-6 and 'A'-'G' -> 0-6.
;   In: R0 = row key, R1 = column key.  Out: R0 = row number, R1 = column number.
; ---------------------------------------------------------------------------------------------
TRANSLATE_MOVE
        ST R2, TM_SAVE_R2
        LD R2, NEG_ASCII_0
        ADD R0, R0, R2
        LD R2, NEG_ASCII_A
        ADD R1, R1, R2
        LD R2, TM_SAVE_R2
        RET

TM_SAVE_R2      .BLKW 1

; ---------------------------------------------------------------------------------------------
; IS_OCCUPIED: does position (R0, R1) hold something other than a space?
;   In: R0 = row, R1 = column.  Out: R3 = -1 if occupied, 0 if free.  R0, R1 kept.
; ---------------------------------------------------------------------------------------------
IS_OCCUPIED
        ST R2, IO_SAVE_R2
        ST R7, IO_SAVE_R7
        JSR GET_ADDRESS             ; R3 = its address
        LDR R2, R3, #0
        LD R3, NEG_ASCII_SPACE
        ADD R2, R2, R3              ; zero for a space
        AND R3, R3, #0
        ADD R2, R2, #0
        BRz IO_DONE
        ADD R3, R3, #-1
IO_DONE
        LD R2, IO_SAVE_R2
        LD R7, IO_SAVE_R7
        RET

IO_SAVE_R2      .BLKW 1
IO_SAVE_R7      .BLKW 1

; ---------------------------------------------------------------------------------------------
; GET_ADDRESS: the address of position (R0, R1) in the board: BOARD_ROW0 + 8*R0 + R1.
;   In: R0 = row, R1 = column.  Out: R3 = the address.
; ---------------------------------------------------------------------------------------------
GET_ADDRESS
        ST R2, GA_SAVE_R2
        ADD R3, R0, R0              ; 2 * row
        ADD R3, R3, R3              ; 4 * row
        ADD R3, R3, R3              ; 8 * row: each row string takes 8 words
        ADD R3, R3, R1              ; + column
        LEA R2, BOARD_ROW0
        ADD R3, R3, R2
        LD R2, GA_SAVE_R2
        RET

GA_SAVE_R2      .BLKW 1

; ---------------------------------------------------------------------------------------------
; APPLY_MOVE: draws the line at (R0, R1): '-' on an even row (between two dots of that row),
;   '|' on an odd row (between two dots of that column).
;   In: R0 = row, R1 = column.  Out: nothing.  R0, R1 kept.
; ---------------------------------------------------------------------------------------------
APPLY_MOVE
        ST R2, AM_SAVE_R2
        ST R3, AM_SAVE_R3
        ST R7, AM_SAVE_R7
        JSR GET_ADDRESS             ; R3 = where to draw
        LD R2, ASCII_DASH
        AND R7, R0, #1              ; odd row?
        BRz AM_DRAW
        LD R2, ASCII_PIPE
AM_DRAW
        STR R2, R3, #0
        LD R2, AM_SAVE_R2
        LD R3, AM_SAVE_R3
        LD R7, AM_SAVE_R7
        RET

AM_SAVE_R2      .BLKW 1
AM_SAVE_R3      .BLKW 1
AM_SAVE_R7      .BLKW 1

; ---------------------------------------------------------------------------------------------
; FILL_BOX: writes the current player's number ('1' or '2') in the box centred at (R0, R1).
;   In: R0 = row, R1 = column of the centre.  Out: nothing.  R0, R1 kept.
; ---------------------------------------------------------------------------------------------
FILL_BOX
        ST R2, FB_SAVE_R2
        ST R3, FB_SAVE_R3
        ST R7, FB_SAVE_R7
        JSR GET_ADDRESS
        LD R2, CURRENT_PLAYER       ; the player who drew the line ...
        LD R7, ASCII_0
        ADD R2, R2, R7              ; ... as a digit
        STR R2, R3, #0
        LD R2, FB_SAVE_R2
        LD R3, FB_SAVE_R3
        LD R7, FB_SAVE_R7
        RET

FB_SAVE_R2      .BLKW 1
FB_SAVE_R3      .BLKW 1
FB_SAVE_R7      .BLKW 1

; ---------------------------------------------------------------------------------------------
; UPDATE_STATE: the boxes the move completed go to the current player's score. If it
;   completed none, the turn passes to the other player; otherwise the same player goes again
;   and CURRENT_PLAYER is not written at all.
;   In: R0 = boxes just completed (0, 1 or 2).  Out: nothing (memory is updated).
; ---------------------------------------------------------------------------------------------
UPDATE_STATE
        ST R1, US_SAVE_R1
        ST R2, US_SAVE_R2
        LD R1, CURRENT_PLAYER
        ADD R0, R0, #0
        BRz US_NEXT_PLAYER          ; no box: the other player's turn
        ADD R2, R1, #-1
        BRp US_PLAYER_TWO
        LD R2, SCORE_PLAYER_ONE
        ADD R2, R2, R0
        ST R2, SCORE_PLAYER_ONE
        BRnzp US_DONE
US_PLAYER_TWO
        LD R2, SCORE_PLAYER_TWO
        ADD R2, R2, R0
        ST R2, SCORE_PLAYER_TWO
        BRnzp US_DONE
US_NEXT_PLAYER
        NOT R1, R1
        ADD R1, R1, #4              ; 3 - player: 1 -> 2, 2 -> 1
        ST R1, CURRENT_PLAYER
US_DONE
        LD R1, US_SAVE_R1
        LD R2, US_SAVE_R2
        RET

US_SAVE_R1      .BLKW 1
US_SAVE_R2      .BLKW 1

; ---------------------------------------------------------------------------------------------
; IS_GAME_OVER: the game is over when the two scores add up to all 9 boxes.
;   In: nothing.  Out: R3 = -1 if the game is not over, 0 if it is.
; ---------------------------------------------------------------------------------------------
IS_GAME_OVER
        ST R0, GO_SAVE_R0
        LD R3, SCORE_PLAYER_ONE
        LD R0, SCORE_PLAYER_TWO
        ADD R3, R3, R0
        LD R0, ALL_BOXES
        ADD R3, R3, R0              ; zero once every box is taken
        BRz GO_DONE
        AND R3, R3, #0
        ADD R3, R3, #-1
GO_DONE
        LD R0, GO_SAVE_R0
        RET

GO_SAVE_R0      .BLKW 1

; ---------------------------------------------------------------------------------------------
; BOXES_COMPLETED: which boxes did the line just drawn at (R0, R1) complete?  A '-' (even row)
;   borders the box above and the box below it, a '|' (odd row) the box on its left and the
;   box on its right; lines on the edge of the board border only one box. Each candidate is
;   checked by CHECK_BOX, which calls FILL_BOX when all four sides are drawn.
;   In: R0 = row, R1 = column of the move.  Out: R3 = boxes completed (0, 1 or 2).  R0, R1 kept.
; ---------------------------------------------------------------------------------------------
BOXES_COMPLETED
        ST R0, BC_SAVE_R0
        ST R1, BC_SAVE_R1
        ST R2, BC_SAVE_R2
        ST R7, BC_SAVE_R7
        AND R2, R2, #0              ; R2 = boxes completed so far
        AND R3, R0, #1
        BRp BC_VERTICAL
        ; a '-': the boxes above and below
        ADD R0, R0, #-1             ; the centre above
        BRn BC_BELOW                ; none above the top row
        JSR CHECK_BOX
        ADD R2, R2, R3
BC_BELOW
        LD R0, BC_SAVE_R0
        ADD R0, R0, #1              ; the centre below
        ADD R3, R0, #-6
        BRp BC_DONE                 ; none below the bottom row
        JSR CHECK_BOX
        ADD R2, R2, R3
        BRnzp BC_DONE
BC_VERTICAL
        ; a '|': the boxes on the left and on the right
        ADD R1, R1, #-1             ; the centre on the left
        BRn BC_RIGHT                ; none left of column A
        JSR CHECK_BOX
        ADD R2, R2, R3
BC_RIGHT
        LD R1, BC_SAVE_R1
        ADD R1, R1, #1              ; the centre on the right
        ADD R3, R1, #-6
        BRp BC_DONE                 ; none right of column G
        JSR CHECK_BOX
        ADD R2, R2, R3
BC_DONE
        ADD R3, R2, #0
        LD R0, BC_SAVE_R0
        LD R1, BC_SAVE_R1
        LD R2, BC_SAVE_R2
        LD R7, BC_SAVE_R7
        RET

BC_SAVE_R0      .BLKW 1
BC_SAVE_R1      .BLKW 1
BC_SAVE_R2      .BLKW 1
BC_SAVE_R7      .BLKW 1

; ---------------------------------------------------------------------------------------------
; CHECK_BOX: if all four sides of the box centred at (R0, R1) are drawn, fill it in.
;   In: R0 = row, R1 = column of the centre.  Out: R3 = 1 if the box was completed, else 0.
;   R0, R1 kept.
; ---------------------------------------------------------------------------------------------
CHECK_BOX
        ST R2, CB_SAVE_R2
        ST R7, CB_SAVE_R7
        AND R2, R2, #0              ; R2 = -(sides drawn)
        ADD R0, R0, #-1             ; the side above
        JSR IS_OCCUPIED
        ADD R2, R2, R3
        ADD R0, R0, #2              ; the side below
        JSR IS_OCCUPIED
        ADD R2, R2, R3
        ADD R0, R0, #-1             ; back to the centre's row
        ADD R1, R1, #-1             ; the side on the left
        JSR IS_OCCUPIED
        ADD R2, R2, R3
        ADD R1, R1, #2              ; the side on the right
        JSR IS_OCCUPIED
        ADD R2, R2, R3
        ADD R1, R1, #-1             ; back to the centre's column
        AND R3, R3, #0
        ADD R2, R2, #4              ; zero when all four sides are drawn
        BRnp CB_DONE
        JSR FILL_BOX
        ADD R3, R3, #1
CB_DONE
        LD R2, CB_SAVE_R2
        LD R7, CB_SAVE_R7
        RET

CB_SAVE_R2      .BLKW 1
CB_SAVE_R7      .BLKW 1

; ---------------------------------------------------------------------------------------------
; TERMINATE_ROWS: writes the NUL that ends each board row again.
; ---------------------------------------------------------------------------------------------
TERMINATE_ROWS
        ST R0, TR_SAVE_R0
        ST R1, TR_SAVE_R1
        ST R2, TR_SAVE_R2
        AND R2, R2, #0
        LD R0, TR_BOARD
        ADD R0, R0, #7              ; R0 = the NUL of row 0
        AND R1, R1, #0
        ADD R1, R1, #7              ; BUG: 7 down to 0 with BRzp is 8 rows, not 7
TR_ROW
        STR R2, R0, #0              ; the 8th store lands 8 words past BOARD_ROW6's NUL
        ADD R0, R0, #8
        ADD R1, R1, #-1
        BRzp TR_ROW
        LD R0, TR_SAVE_R0
        LD R1, TR_SAVE_R1
        LD R2, TR_SAVE_R2
        RET

TR_SAVE_R0      .BLKW 1
TR_SAVE_R1      .BLKW 1
TR_SAVE_R2      .BLKW 1
TR_BOARD        .FILL BOARD_ROW0

        .END
