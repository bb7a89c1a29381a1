; BROKEN COPY for tests/grade_games.rs (an endless loop): CHECK_VALID no longer rejects a
; full column, and UPDATE_BOARD's search for an empty cell starts again at the bottom when it
; passes the top, so a move into a full column loops for ever without printing anything.
; =============================================================================================
; connect4.asm -- Connect-4 on a 6x6 grid for the LC-3
;                 (EE 306 Programming Assignment 4, ../shared/specs/lc3-connect4.md)
; =============================================================================================
;
; What it is
;   Two players take turns dropping a checker into one of six columns; it falls to the lowest
;   empty cell. Player 1's checkers are 'O', Player 2's are 'X', an empty cell is '-'. The first
;   player with four of his checkers in a line (horizontal, vertical or either diagonal) wins;
;   when all 36 cells are filled without that, the game is a tie. After every move the board is
;   shown again; at the end the program prints "Player N Wins." or "Tie Game." and HALTs.
;   A move is a column digit 1-6 followed by Enter. The keys are echoed as they are typed and
;   Enter (LF, CR, or CR LF) is echoed as a newline. Anything else -- another key, no key or more than one key
;   before Enter, or a column that is already full -- prints "Invalid move. Try again." and the
;   same player is asked again.
;
; How to run it
;   asmdbg run programs/lc3/connect4.asm             (type 4 and Enter, and so on)
;   asmdbg run programs/lc3/connect4.asm --input tests/programs/lc3/connect4-sample.in
;
; How to debug it
;   asmdbg debug programs/lc3/connect4.asm           (prints the gdb port and the console pty)
;   gdb-multiarch -ex 'target remote :1234'          (then e.g. `break CHECK_WINNER`, `continue`,
;                                                     and type the moves on the console pty)
;   In gdb the LC-3 registers are R0-R7 and PSR, in capitals (`info registers R5 R6`; a lower-
;   case r0 is a hidden register of the ARM description gdb is given, not the LC-3's R0).
;
; Labels that matter
;   CURRENT_PLAYER   1 or 2: whose turn it is (CHANGE_TURN is the only code that writes it)
;   WINNER           0 while the game goes on, 1 or 2 when that player has won, 3 for a tie
;   GRID_ROW0 .. GRID_ROW5
;                    the board: six .STRINGZ rows of six cells, row 0 at the top; ROW_TABLE
;                    holds their addresses. A cell holds '-', 'O' or 'X'.
;   CHECK_WINNER     called with R5 = row (0-5, 0 = top) and R6 = column (1-6) of the last move
;
; Choices where the spec's text and its sample differ
;   * The PDF's sample lost a column (and, on some boards, a row): the rules say 6x6, so every
;     board here has six rows of six cells, separated by single spaces, no trailing space.
;   * The spec's "initial state" listing shows seven rows of "-----"; that is the same artefact.
;   * The prompt is "Player N, choose a column: " (with the comma, as in the rules text and the
;     sample; the starter-code description omits the comma).
;   * "Player N Wins." and "Tie Game." have no newline of their own: the HALT routine's banner
;     starts with one, which gives exactly the sample's last two lines.
;
; Subroutines and register conventions (from the spec)
;   CHECK_VALID      In: R0 = the key typed (ASCII). Out: R6 = 0 if invalid, else the column 1-6.
;   CHECK_HORIZONTAL, CHECK_VERTICAL, CHECK_DIAGONAL, CHECK_D1, CHECK_D2
;                    In: R6 = column (1-6), R5 = row (0-5) of the last move.
;                    Out: R4 = 1 if that move makes four in a row in that direction, else 0.
;   Every subroutine saves and restores the registers it uses, except its outputs. R7 is saved
;   too, because TRAPs and JSRs overwrite it.
; =============================================================================================

        .ORIG x3000

; ---------------------------------------------------------------------------------------------
; Main program
; ---------------------------------------------------------------------------------------------
MAIN
        JSR DISPLAY_BOARD           ; the empty board
NEXT_MOVE
        JSR GET_MOVE                ; R6 = a valid column (1-6), asked until one is typed
        JSR UPDATE_BOARD            ; drop the checker; R5 = the row it landed in
        JSR DISPLAY_BOARD
        JSR UPDATE_STATE            ; a win, a tie, or the other player's turn
        JSR GAME_OVER               ; prints the result if the game is over; R3 = 1 if so
        ADD R3, R3, #0
        BRz NEXT_MOVE
        HALT

; ---------------------------------------------------------------------------------------------
; DISPLAY_BOARD: prints the six rows, top row first, cells separated by one space.
;   In: nothing.  Out: nothing.
; ---------------------------------------------------------------------------------------------
DISPLAY_BOARD
        ST R0, DB_SAVE_R0
        ST R1, DB_SAVE_R1
        ST R2, DB_SAVE_R2
        ST R3, DB_SAVE_R3
        ST R7, DB_SAVE_R7
        LEA R3, ROW_TABLE           ; R3 walks over the row addresses
        AND R2, R2, #0
        ADD R2, R2, #6              ; R2 = rows still to print
DB_ROW
        LDR R1, R3, #0              ; R1 = address of the row's first cell
        LDR R0, R1, #0              ; the first cell has no space before it
        OUT
DB_CELL
        ADD R1, R1, #1
        LDR R0, R1, #0
        BRz DB_ROW_DONE             ; the NUL that ends the row's .STRINGZ
        LD R0, ASCII_SPACE
        OUT
        LDR R0, R1, #0
        OUT
        BRnzp DB_CELL
DB_ROW_DONE
        LD R0, NEWLINE
        OUT
        ADD R3, R3, #1
        ADD R2, R2, #-1
        BRp DB_ROW
        LD R0, DB_SAVE_R0
        LD R1, DB_SAVE_R1
        LD R2, DB_SAVE_R2
        LD R3, DB_SAVE_R3
        LD R7, DB_SAVE_R7
        RET

DB_SAVE_R0      .BLKW 1
DB_SAVE_R1      .BLKW 1
DB_SAVE_R2      .BLKW 1
DB_SAVE_R3      .BLKW 1
DB_SAVE_R7      .BLKW 1

; ---------------------------------------------------------------------------------------------
; DISPLAY_TURN: prints "Player N, choose a column: " for N = CURRENT_PLAYER.
;   In: CURRENT_PLAYER.  Out: nothing.
; ---------------------------------------------------------------------------------------------
DISPLAY_TURN
        ST R0, DT_SAVE_R0
        ST R7, DT_SAVE_R7
        JSR PRINT_PLAYER
        LEA R0, TURN_MSG
        PUTS
        LD R0, DT_SAVE_R0
        LD R7, DT_SAVE_R7
        RET

DT_SAVE_R0      .BLKW 1
DT_SAVE_R7      .BLKW 1

; ---------------------------------------------------------------------------------------------
; GET_MOVE: prompts the current player and reads keys up to Enter, echoing them (Enter is
;   echoed as a newline). Exactly one key accepted by CHECK_VALID makes a move; anything else
;   prints "Invalid move. Try again." and asks again.
;   Enter is LF (x0A) or CR (x0D: what a terminal in raw mode sends); the LF of a CR LF pair
;   (a file with DOS line endings) is skipped, so the pair is one Enter.
;   In: nothing.  Out: R6 = the column, 1-6.
; ---------------------------------------------------------------------------------------------
GET_MOVE
        ST R0, GM_SAVE_R0
        ST R1, GM_SAVE_R1
        ST R2, GM_SAVE_R2
        ST R7, GM_SAVE_R7
GM_ASK
        JSR DISPLAY_TURN
        AND R1, R1, #0              ; R1 = the first key typed
        AND R2, R2, #0              ; R2 = how many keys were typed before Enter
GM_KEY
        GETC
        LD R6, LAST_KEY             ; the key read before this one
        ST R0, LAST_KEY
        ADD R6, R6, #-13
        BRnp GM_NOT_CRLF
        ADD R6, R0, #-10
        BRz GM_KEY                  ; the LF of a CR LF pair: that Enter was already taken
GM_NOT_CRLF
        ADD R6, R0, #-10            ; line feed?
        BRz GM_ENTER
        ADD R6, R0, #-13            ; carriage return?
        BRz GM_ENTER
        OUT                         ; echo the key
        ADD R2, R2, #0
        BRnp GM_COUNT               ; not the first key: only count it
        ADD R1, R0, #0
GM_COUNT
        ADD R2, R2, #1
        BRnzp GM_KEY
GM_ENTER
        LD R0, NEWLINE              ; echo Enter as a newline
        OUT
        ADD R2, R2, #-1
        BRnp GM_INVALID             ; no key, or more than one key
        ADD R0, R1, #0
        JSR CHECK_VALID             ; R6 = column, or 0
        ADD R6, R6, #0
        BRp GM_DONE
GM_INVALID
        LEA R0, INVALID_MSG
        PUTS
        BRnzp GM_ASK
GM_DONE
        LD R0, GM_SAVE_R0
        LD R1, GM_SAVE_R1
        LD R2, GM_SAVE_R2
        LD R7, GM_SAVE_R7
        RET

GM_SAVE_R0      .BLKW 1
GM_SAVE_R1      .BLKW 1
GM_SAVE_R2      .BLKW 1
GM_SAVE_R7      .BLKW 1
LAST_KEY        .FILL #0            ; the previous key, to see CR LF as one Enter

; ---------------------------------------------------------------------------------------------
; CHECK_VALID: is the key in R0 a column that still has room?
;   In: R0 = the key (ASCII).  Out: R6 = 0 if the move is invalid, else the column 1-6.
;   A column is full when its top cell (row 0) is not '-'.
; ---------------------------------------------------------------------------------------------
CHECK_VALID
        ST R0, CV_SAVE_R0
        ST R1, CV_SAVE_R1
        LD R1, NEG_ASCII_0
        ADD R6, R0, R1              ; R6 = key - '0'
        BRnz CV_INVALID             ; '0' or below
        ADD R1, R6, #-6
        BRnz CV_DONE                ; BUG: a full column is not rejected here
CV_INVALID
        AND R6, R6, #0
CV_DONE
        LD R0, CV_SAVE_R0
        LD R1, CV_SAVE_R1
        RET

CV_SAVE_R0      .BLKW 1
CV_SAVE_R1      .BLKW 1

; ---------------------------------------------------------------------------------------------
; UPDATE_BOARD: drops the current player's checker into column R6: it lands in the lowest
;   empty cell (CHECK_VALID made sure there is one).
;   In: R6 = column (1-6).  Out: R5 = the row it landed in (0 = top, 5 = bottom).
; ---------------------------------------------------------------------------------------------
UPDATE_BOARD
        ST R0, UB_SAVE_R0
        ST R1, UB_SAVE_R1
        ST R3, UB_SAVE_R3
        ST R7, UB_SAVE_R7
        AND R5, R5, #0
        ADD R5, R5, #5              ; start at the bottom row
UB_FIND
        JSR GET_CELL_ADDRESS        ; R3 = address of (R5, R6)
        LDR R0, R3, #0
        LD R1, NEG_ASCII_EMPTY
        ADD R0, R0, R1
        BRz UB_FOUND
        ADD R5, R5, #-1             ; occupied: look one row higher
        BRzp UB_FIND
        ADD R5, R5, #6              ; BUG: past the top, start again at the bottom: a full
        BRnzp UB_FIND               ; column is searched for ever, printing nothing
UB_FOUND
        JSR PLAYER_CHECKER          ; R0 = 'O' or 'X'
        STR R0, R3, #0
        LD R0, UB_SAVE_R0
        LD R1, UB_SAVE_R1
        LD R3, UB_SAVE_R3
        LD R7, UB_SAVE_R7
        RET

UB_SAVE_R0      .BLKW 1
UB_SAVE_R1      .BLKW 1
UB_SAVE_R3      .BLKW 1
UB_SAVE_R7      .BLKW 1

; ---------------------------------------------------------------------------------------------
; Constants and messages
; ---------------------------------------------------------------------------------------------
NEWLINE         .FILL x000A
ASCII_SPACE     .FILL x0020
ASCII_0         .FILL x0030
NEG_ASCII_0     .FILL xFFD0         ; -'0'
NEG_ASCII_EMPTY .FILL xFFD3         ; -'-'
ASCII_O         .FILL x004F         ; Player 1's checker
ASCII_X         .FILL x0058         ; Player 2's checker
PLAYER_WORD     .STRINGZ "Player "
TURN_MSG        .STRINGZ ", choose a column: "
INVALID_MSG     .STRINGZ "Invalid move. Try again.\n"
WINS_MSG        .STRINGZ " Wins."
TIE_MSG         .STRINGZ "Tie Game."

; ---------------------------------------------------------------------------------------------
; Game state
; ---------------------------------------------------------------------------------------------
CURRENT_PLAYER  .FILL #1            ; Player 1 always goes first
WINNER          .FILL #0            ; 0 = playing, 1 or 2 = that player won, 3 = tie
ROW_TABLE       .FILL GRID_ROW0     ; the address of each row, top to bottom
                .FILL GRID_ROW1
                .FILL GRID_ROW2
                .FILL GRID_ROW3
                .FILL GRID_ROW4
                .FILL GRID_ROW5
GRID_ROW0_ADDR  .FILL GRID_ROW0
GRID_ROW0       .STRINGZ "------"   ; row 0, the top
GRID_ROW1       .STRINGZ "------"
GRID_ROW2       .STRINGZ "------"
GRID_ROW3       .STRINGZ "------"
GRID_ROW4       .STRINGZ "------"
GRID_ROW5       .STRINGZ "------"   ; row 5, the bottom

; ---------------------------------------------------------------------------------------------
; CHANGE_TURN: CURRENT_PLAYER becomes 3 - CURRENT_PLAYER (1 -> 2, 2 -> 1).
;   In/Out: CURRENT_PLAYER.
; ---------------------------------------------------------------------------------------------
CHANGE_TURN
        ST R0, CT_SAVE_R0
        LD R0, CURRENT_PLAYER
        NOT R0, R0
        ADD R0, R0, #4              ; -player + 3
        ST R0, CURRENT_PLAYER
        LD R0, CT_SAVE_R0
        RET

CT_SAVE_R0      .BLKW 1

; ---------------------------------------------------------------------------------------------
; UPDATE_STATE: after a move at (R5, R6): if it wins, WINNER = CURRENT_PLAYER; otherwise, if
;   the board is full, WINNER = 3 (a tie); otherwise it is the other player's turn.
;   In: R5 = row, R6 = column of the last move.  Out: WINNER, CURRENT_PLAYER.
; ---------------------------------------------------------------------------------------------
UPDATE_STATE
        ST R0, US_SAVE_R0
        ST R1, US_SAVE_R1
        ST R2, US_SAVE_R2
        ST R4, US_SAVE_R4
        ST R7, US_SAVE_R7
        JSR CHECK_WINNER            ; R4 = 1 if the move wins
        ADD R4, R4, #0
        BRz US_NO_WIN
        LD R0, CURRENT_PLAYER
        ST R0, WINNER
        BRnzp US_DONE
US_NO_WIN
        LD R1, GRID_ROW0_ADDR       ; full board = no '-' left in the top row
        AND R2, R2, #0
        ADD R2, R2, #6
US_TOP_CELL
        LDR R0, R1, #0
        LD R4, NEG_ASCII_EMPTY
        ADD R0, R0, R4
        BRz US_NEXT_TURN            ; a column with room: the game goes on
        ADD R1, R1, #1
        ADD R2, R2, #-1
        BRp US_TOP_CELL
        AND R0, R0, #0
        ADD R0, R0, #3
        ST R0, WINNER               ; 3 = tie
        BRnzp US_DONE
US_NEXT_TURN
        JSR CHANGE_TURN
US_DONE
        LD R0, US_SAVE_R0
        LD R1, US_SAVE_R1
        LD R2, US_SAVE_R2
        LD R4, US_SAVE_R4
        LD R7, US_SAVE_R7
        RET

US_SAVE_R0      .BLKW 1
US_SAVE_R1      .BLKW 1
US_SAVE_R2      .BLKW 1
US_SAVE_R4      .BLKW 1
US_SAVE_R7      .BLKW 1

; ---------------------------------------------------------------------------------------------
; GAME_OVER: prints "Player N Wins." or "Tie Game." if the game has ended.
;   In: WINNER.  Out: R3 = 1 if the game is over, 0 if it goes on.
; ---------------------------------------------------------------------------------------------
GAME_OVER
        ST R0, GO_SAVE_R0
        ST R7, GO_SAVE_R7
        AND R3, R3, #0
        LD R0, WINNER
        BRz GO_DONE                 ; 0: nobody has won yet
        ADD R3, R3, #1
        ADD R0, R0, #-3
        BRz GO_TIE
        JSR PRINT_PLAYER            ; CURRENT_PLAYER is still the winner
        LEA R0, WINS_MSG
        PUTS
        BRnzp GO_DONE
GO_TIE
        LEA R0, TIE_MSG
        PUTS
GO_DONE
        LD R0, GO_SAVE_R0
        LD R7, GO_SAVE_R7
        RET

GO_SAVE_R0      .BLKW 1
GO_SAVE_R7      .BLKW 1

; ---------------------------------------------------------------------------------------------
; GET_CELL_ADDRESS: the address of the cell at row R5 (0-5), column R6 (1-6).
;   In: R5, R6.  Out: R3 = ROW_TABLE[R5] + R6 - 1.
; ---------------------------------------------------------------------------------------------
GET_CELL_ADDRESS
        LEA R3, ROW_TABLE
        ADD R3, R3, R5
        LDR R3, R3, #0              ; the address of row R5's first cell
        ADD R3, R3, R6
        ADD R3, R3, #-1
        RET

; ---------------------------------------------------------------------------------------------
; PLAYER_CHECKER: the current player's checker.
;   In: CURRENT_PLAYER.  Out: R0 = 'O' for Player 1, 'X' for Player 2.
; ---------------------------------------------------------------------------------------------
PLAYER_CHECKER
        LD R0, CURRENT_PLAYER
        ADD R0, R0, #-1
        BRp PC_TWO
        LD R0, ASCII_O
        RET
PC_TWO
        LD R0, ASCII_X
        RET

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
; CHECK_WINNER: does the move at (R5, R6) make four in a row in any direction?
;   In: R5 = row, R6 = column.  Out: R4 = 1 if it is a winning move, else 0.
; ---------------------------------------------------------------------------------------------
CHECK_WINNER
        ST R7, CW_SAVE_R7
        JSR CHECK_HORIZONTAL
        ADD R4, R4, #0
        BRp CW_DONE
        JSR CHECK_VERTICAL
        ADD R4, R4, #0
        BRp CW_DONE
        JSR CHECK_DIAGONAL
CW_DONE
        LD R7, CW_SAVE_R7
        RET

CW_SAVE_R7      .BLKW 1

; ---------------------------------------------------------------------------------------------
; CHECK_HORIZONTAL, CHECK_VERTICAL, CHECK_D1 (rising, like /), CHECK_D2 (falling, like \):
;   each counts the last move's checker plus the same player's checkers next to it in both
;   senses of one direction, and answers R4 = 1 when that makes at least four.
;   In: R5 = row, R6 = column.  Out: R4 = 1 if winning in that direction, else 0.
;   The direction is given to FOUR_IN_LINE as a step (R1 = rows, R2 = columns).
; ---------------------------------------------------------------------------------------------
CHECK_HORIZONTAL
        ST R1, CH_SAVE_R1
        ST R2, CH_SAVE_R2
        ST R7, CH_SAVE_R7
        AND R1, R1, #0              ; same row
        AND R2, R2, #0
        ADD R2, R2, #1              ; next column
        JSR FOUR_IN_LINE
        LD R1, CH_SAVE_R1
        LD R2, CH_SAVE_R2
        LD R7, CH_SAVE_R7
        RET

CH_SAVE_R1      .BLKW 1
CH_SAVE_R2      .BLKW 1
CH_SAVE_R7      .BLKW 1

CHECK_VERTICAL
        ST R1, CVT_SAVE_R1
        ST R2, CVT_SAVE_R2
        ST R7, CVT_SAVE_R7
        AND R1, R1, #0
        ADD R1, R1, #1              ; next row down
        AND R2, R2, #0              ; same column
        JSR FOUR_IN_LINE
        LD R1, CVT_SAVE_R1
        LD R2, CVT_SAVE_R2
        LD R7, CVT_SAVE_R7
        RET

CVT_SAVE_R1     .BLKW 1
CVT_SAVE_R2     .BLKW 1
CVT_SAVE_R7     .BLKW 1

CHECK_DIAGONAL
        ST R7, CD_SAVE_R7
        JSR CHECK_D1
        ADD R4, R4, #0
        BRp CD_DONE
        JSR CHECK_D2
CD_DONE
        LD R7, CD_SAVE_R7
        RET

CD_SAVE_R7      .BLKW 1

CHECK_D1
        ST R1, D1_SAVE_R1
        ST R2, D1_SAVE_R2
        ST R7, D1_SAVE_R7
        AND R1, R1, #0
        ADD R1, R1, #-1             ; one row up ...
        AND R2, R2, #0
        ADD R2, R2, #1              ; ... and one column right
        JSR FOUR_IN_LINE
        LD R1, D1_SAVE_R1
        LD R2, D1_SAVE_R2
        LD R7, D1_SAVE_R7
        RET

D1_SAVE_R1      .BLKW 1
D1_SAVE_R2      .BLKW 1
D1_SAVE_R7      .BLKW 1

CHECK_D2
        ST R1, D2_SAVE_R1
        ST R2, D2_SAVE_R2
        ST R7, D2_SAVE_R7
        AND R1, R1, #0
        ADD R1, R1, #1              ; one row down ...
        AND R2, R2, #0
        ADD R2, R2, #1              ; ... and one column right
        JSR FOUR_IN_LINE
        LD R1, D2_SAVE_R1
        LD R2, D2_SAVE_R2
        LD R7, D2_SAVE_R7
        RET

D2_SAVE_R1      .BLKW 1
D2_SAVE_R2      .BLKW 1
D2_SAVE_R7      .BLKW 1

; ---------------------------------------------------------------------------------------------
; FOUR_IN_LINE: the work shared by the four checks above.
;   In: R5 = row, R6 = column of the last move; R1 = row step, R2 = column step.
;   Out: R4 = 1 if the run through (R5, R6) along +-(R1, R2) is at least four long, else 0.
; ---------------------------------------------------------------------------------------------
FOUR_IN_LINE
        ST R0, FL_SAVE_R0
        ST R1, FL_SAVE_R1
        ST R2, FL_SAVE_R2
        ST R3, FL_SAVE_R3
        ST R7, FL_SAVE_R7
        JSR RUN_LENGTH              ; R3 = same checkers after the move along (R1, R2)
        ADD R4, R3, #1              ; R4 = the run so far, the move's own checker included
        NOT R1, R1
        ADD R1, R1, #1              ; reverse the direction
        NOT R2, R2
        ADD R2, R2, #1
        JSR RUN_LENGTH              ; ... and the same checkers before it
        ADD R4, R4, R3
        ADD R4, R4, #-4             ; four or more?
        BRzp FL_WIN
        AND R4, R4, #0
        BRnzp FL_DONE
FL_WIN
        AND R4, R4, #0
        ADD R4, R4, #1
FL_DONE
        LD R0, FL_SAVE_R0
        LD R1, FL_SAVE_R1
        LD R2, FL_SAVE_R2
        LD R3, FL_SAVE_R3
        LD R7, FL_SAVE_R7
        RET

FL_SAVE_R0      .BLKW 1
FL_SAVE_R1      .BLKW 1
FL_SAVE_R2      .BLKW 1
FL_SAVE_R3      .BLKW 1
FL_SAVE_R7      .BLKW 1

; ---------------------------------------------------------------------------------------------
; RUN_LENGTH: how many cells in a row, starting next to (R5, R6) and stepping by (R1, R2), hold
;   the same checker as (R5, R6)?  Stops at the edge of the board.
;   In: R5 = row, R6 = column, R1 = row step, R2 = column step.  Out: R3 = that count.
; ---------------------------------------------------------------------------------------------
RUN_LENGTH
        ST R0, RL_SAVE_R0
        ST R4, RL_SAVE_R4
        ST R5, RL_SAVE_R5
        ST R6, RL_SAVE_R6
        ST R7, RL_SAVE_R7
        JSR GET_CELL_ADDRESS
        LDR R0, R3, #0
        NOT R0, R0
        ADD R0, R0, #1              ; R0 = -(the move's checker)
        AND R4, R4, #0              ; R4 = the count
RL_STEP
        ADD R5, R5, R1              ; next cell
        ADD R6, R6, R2
        ADD R5, R5, #0
        BRn RL_DONE                 ; above the top row
        ADD R3, R5, #-5
        BRp RL_DONE                 ; below the bottom row
        ADD R6, R6, #0
        BRnz RL_DONE                ; left of column 1
        ADD R3, R6, #-6
        BRp RL_DONE                 ; right of column 6
        JSR GET_CELL_ADDRESS
        LDR R3, R3, #0
        ADD R3, R3, R0
        BRnp RL_DONE                ; a different checker (or '-')
        ADD R4, R4, #1
        BRnzp RL_STEP
RL_DONE
        ADD R3, R4, #0
        LD R0, RL_SAVE_R0
        LD R4, RL_SAVE_R4
        LD R5, RL_SAVE_R5
        LD R6, RL_SAVE_R6
        LD R7, RL_SAVE_R7
        RET

RL_SAVE_R0      .BLKW 1
RL_SAVE_R4      .BLKW 1
RL_SAVE_R5      .BLKW 1
RL_SAVE_R6      .BLKW 1
RL_SAVE_R7      .BLKW 1

        .END
