; BROKEN COPY for tests/grade_games.rs (an assembly error): an immediate typed with the
; letter O for the digit 0 ("#O") in the main loop.
; =============================================================================================
; nim.asm -- the game of Nim for the LC-3 (EE 306 Programming Lab 4, ../shared/specs/lc3-nim.md)
; =============================================================================================
;
; What it is
;   Two players take turns removing one or more rocks from ONE of three rows (A: 3 rocks,
;   B: 5 rocks, C: 8 rocks). The player who removes the last rock LOSES, so when the board
;   becomes empty the other player is announced as the winner and the program HALTs.
;   A move is two keys, typed without Enter: the row letter (A, B or C, capitals only) and the
;   number of rocks (1 up to the rocks left in that row). Both keys are echoed, then a newline.
;   An invalid move prints "Invalid move. Try again." and the same player is asked again.
;
; How to run it
;   asmdbg run programs/lc3/nim.asm                  (type moves such as B2 on the keyboard)
;   asmdbg run programs/lc3/nim.asm --input tests/programs/lc3/nim-sample.in
;
; How to debug it
;   asmdbg debug programs/lc3/nim.asm                (prints the gdb port and the console pty)
;   gdb-multiarch -ex 'target remote :1234'          (then e.g. `break APPLY_MOVE`, `continue`,
;                                                     and type the moves on the console pty)
;   In gdb the LC-3 registers are R0-R7 and PSR, in capitals (`info registers R4 R5`; a lower-
;   case r0 is a hidden register of the ARM description gdb is given, not the LC-3's R0).
;
; Labels that matter
;   CURRENT_PLAYER   1 or 2: whose turn it is (`watch CURRENT_PLAYER` shows every change of turn)
;   ROCKS            three words: the rocks left in rows A, B and C (ROCKS+0, ROCKS+1, ROCKS+2)
;   CHECK_MOVE       where a move is accepted or rejected; APPLY_MOVE removes the rocks
;   IS_GAME_OVER     counts the rocks left; GAME_OVER is where the winner is announced
;
; Choices where the spec's text and its sample differ
;   * The spec's first board listing shows 9 rocks in row C; its rules text and its sample run
;     say 8. This program uses 8 (the rules).
;   * The text names a row 'for instance "Row A:"', but its required initial board and the
;     sample run both print "ROW A: "; this program prints "ROW A: " (the exact format).
;   * An empty row prints as "ROW B: " (the label, including its space, and no rocks).
;   * The winner banner is "Player N Wins." with no newline of its own: the HALT routine's
;     banner starts with a newline, which gives exactly the sample's last two lines.
;   * After a valid move a blank line separates the move from the next board (or the winner),
;     as in the sample run; after an invalid move there is no blank line.
;
; Register conventions
;   Every subroutine saves and restores the registers it uses, except the ones it returns a
;   result in (listed in its header). R7 is saved too, because TRAPs and JSRs overwrite it.
; =============================================================================================

        .ORIG x3000

; ---------------------------------------------------------------------------------------------
; Main program
; ---------------------------------------------------------------------------------------------
MAIN
        JSR DISPLAY_BOARD           ; show the initial board
NEXT_TURN
        JSR DISPLAY_PROMPT          ; "Player N, choose a row and number of rocks: "
        JSR GET_MOVE                ; R1 = row key, R2 = count key (both echoed, then a newline)
        JSR CHECK_MOVE              ; R3 = 0 if valid; then R4 = row address, R5 = rock count
        ADD R3, R3, #O
        BRz MOVE_IS_VALID
        LEA R0, INVALID_MSG         ; invalid: complain and ask the same player again
        PUTS
        BRnzp NEXT_TURN

MOVE_IS_VALID
        JSR APPLY_MOVE              ; remove R5 rocks from the row at R4
        LD R0, NEWLINE              ; a blank line after the move
        OUT
        JSR IS_GAME_OVER            ; R3 = number of rocks left on the board
        ADD R3, R3, #0
        BRz GAME_OVER
        JSR DISPLAY_BOARD
        JSR SWITCH_PLAYER
        BRnzp NEXT_TURN

GAME_OVER
        JSR SWITCH_PLAYER           ; the player who took the last rock loses: the other one wins
        JSR DISPLAY_WINNER
        HALT

; ---------------------------------------------------------------------------------------------
; DISPLAY_BOARD: prints "ROW A: ooo" and so on, one line per row, one 'o' per rock.
;   In: nothing.  Out: nothing.
; ---------------------------------------------------------------------------------------------
DISPLAY_BOARD
        ST R0, DB_SAVE_R0
        ST R1, DB_SAVE_R1
        ST R2, DB_SAVE_R2
        ST R3, DB_SAVE_R3
        ST R4, DB_SAVE_R4
        ST R7, DB_SAVE_R7
        LEA R2, ROCKS               ; R2 walks over the three row counters
        LD R1, ASCII_A              ; R1 = the letter of the current row
        AND R3, R3, #0
        ADD R3, R3, #3              ; R3 = rows still to print
DB_ROW
        LEA R0, ROW_WORD            ; "ROW "
        PUTS
        ADD R0, R1, #0              ; the row letter
        OUT
        LEA R0, COLON_SPACE         ; ": "
        PUTS
        LDR R4, R2, #0              ; R4 = rocks in this row, counted down
        LD R0, ASCII_ROCK
DB_ROCK
        ADD R4, R4, #-1
        BRn DB_ROW_DONE
        OUT                         ; one 'o' per rock
        BRnzp DB_ROCK
DB_ROW_DONE
        LD R0, NEWLINE
        OUT
        ADD R1, R1, #1              ; next letter
        ADD R2, R2, #1              ; next row counter
        ADD R3, R3, #-1
        BRp DB_ROW
        LD R0, DB_SAVE_R0
        LD R1, DB_SAVE_R1
        LD R2, DB_SAVE_R2
        LD R3, DB_SAVE_R3
        LD R4, DB_SAVE_R4
        LD R7, DB_SAVE_R7
        RET

DB_SAVE_R0      .BLKW 1
DB_SAVE_R1      .BLKW 1
DB_SAVE_R2      .BLKW 1
DB_SAVE_R3      .BLKW 1
DB_SAVE_R4      .BLKW 1
DB_SAVE_R7      .BLKW 1
ROW_WORD        .STRINGZ "ROW "
COLON_SPACE     .STRINGZ ": "

; ---------------------------------------------------------------------------------------------
; DISPLAY_PROMPT: prints "Player N, choose a row and number of rocks: " for the current player.
;   In: CURRENT_PLAYER.  Out: nothing.
; ---------------------------------------------------------------------------------------------
DISPLAY_PROMPT
        ST R0, DP_SAVE_R0
        ST R7, DP_SAVE_R7
        JSR PRINT_PLAYER            ; "Player N"
        LEA R0, PROMPT_MSG          ; ", choose a row and number of rocks: "
        PUTS
        LD R0, DP_SAVE_R0
        LD R7, DP_SAVE_R7
        RET

DP_SAVE_R0      .BLKW 1
DP_SAVE_R7      .BLKW 1

; ---------------------------------------------------------------------------------------------
; GET_MOVE: reads the two keys of a move with GETC, echoes each with OUT, then prints a newline.
;   In: nothing.  Out: R1 = first key (the row), R2 = second key (the number of rocks).
; ---------------------------------------------------------------------------------------------
GET_MOVE
        ST R0, GM_SAVE_R0
        ST R7, GM_SAVE_R7
        GETC                        ; the row letter
        OUT
        ADD R1, R0, #0
        GETC                        ; the number of rocks
        OUT
        ADD R2, R0, #0
        LD R0, NEWLINE
        OUT
        LD R0, GM_SAVE_R0
        LD R7, GM_SAVE_R7
        RET

GM_SAVE_R0      .BLKW 1
GM_SAVE_R7      .BLKW 1

; ---------------------------------------------------------------------------------------------
; CHECK_MOVE: is the move (R1, R2) legal?  The row must be 'A', 'B' or 'C'; the number must be a
;   digit from 1 up to the number of rocks left in that row.
;   In:  R1 = row key, R2 = count key (ASCII).
;   Out: R3 = 0 if the move is valid, -1 if not.
;        When valid: R4 = address of the row's counter in ROCKS, R5 = rocks to remove (binary).
; ---------------------------------------------------------------------------------------------
CHECK_MOVE
        ST R0, CM_SAVE_R0
        ; --- the row: R4 = R1 - 'A' must be 0, 1 or 2
        LD R0, NEG_ASCII_A
        ADD R4, R1, R0
        BRn CM_INVALID              ; below 'A'
        ADD R0, R4, #-2
        BRp CM_INVALID              ; above 'C'
        LEA R0, ROCKS
        ADD R4, R4, R0              ; R4 = address of this row's counter
        ; --- the number: R5 = R2 - '0' must be at least 1 ...
        LD R0, NEG_ASCII_0
        ADD R5, R2, R0
        ADD R0, R5, #-1
        BRn CM_INVALID              ; '0' or a key below '0'
        ADD R0, R5, #-9
        BRp CM_INVALID              ; a key above '9'
        ; --- ... and at most the rocks left: rocks - R5 >= 0
        LDR R0, R4, #0              ; R0 = rocks left in the row
        NOT R3, R5
        ADD R3, R3, #1              ; R3 = -R5
        ADD R0, R0, R3
        BRn CM_INVALID
        AND R3, R3, #0              ; valid
        BRnzp CM_DONE
CM_INVALID
        AND R3, R3, #0
        ADD R3, R3, #-1             ; invalid
CM_DONE
        LD R0, CM_SAVE_R0
        RET

CM_SAVE_R0      .BLKW 1

; ---------------------------------------------------------------------------------------------
; APPLY_MOVE: removes R5 rocks from the row whose counter is at address R4.
;   In: R4 = address of the row's counter, R5 = rocks to remove.  Out: nothing.
; ---------------------------------------------------------------------------------------------
APPLY_MOVE
        ST R0, AM_SAVE_R0
        ST R1, AM_SAVE_R1
        LDR R0, R4, #0
        NOT R1, R5
        ADD R1, R1, #1              ; R1 = -R5
        ADD R0, R0, R1
        STR R0, R4, #0
        LD R0, AM_SAVE_R0
        LD R1, AM_SAVE_R1
        RET

AM_SAVE_R0      .BLKW 1
AM_SAVE_R1      .BLKW 1

; ---------------------------------------------------------------------------------------------
; IS_GAME_OVER: counts the rocks left on the board; the game is over when there are none.
;   In: nothing.  Out: R3 = rocks left (0 means the game is over).
; ---------------------------------------------------------------------------------------------
IS_GAME_OVER
        ST R0, GO_SAVE_R0
        ST R1, GO_SAVE_R1
        LEA R0, ROCKS
        LDR R3, R0, #0              ; row A
        LDR R1, R0, #1              ; + row B
        ADD R3, R3, R1
        LDR R1, R0, #2              ; + row C
        ADD R3, R3, R1
        LD R0, GO_SAVE_R0
        LD R1, GO_SAVE_R1
        RET

GO_SAVE_R0      .BLKW 1
GO_SAVE_R1      .BLKW 1

; ---------------------------------------------------------------------------------------------
; SWITCH_PLAYER: CURRENT_PLAYER becomes 3 - CURRENT_PLAYER (1 -> 2, 2 -> 1).
;   In/Out: CURRENT_PLAYER.
; ---------------------------------------------------------------------------------------------
SWITCH_PLAYER
        ST R0, SP_SAVE_R0
        ST R1, SP_SAVE_R1
        LD R0, CURRENT_PLAYER
        NOT R0, R0
        ADD R0, R0, #1              ; -player
        AND R1, R1, #0
        ADD R1, R1, #3
        ADD R0, R0, R1              ; 3 - player
        ST R0, CURRENT_PLAYER       ; the only store to CURRENT_PLAYER
        LD R0, SP_SAVE_R0
        LD R1, SP_SAVE_R1
        RET

SP_SAVE_R0      .BLKW 1
SP_SAVE_R1      .BLKW 1

; ---------------------------------------------------------------------------------------------
; DISPLAY_WINNER: prints "Player N Wins." for N = CURRENT_PLAYER (no newline: HALT adds one).
;   In: CURRENT_PLAYER.  Out: nothing.
; ---------------------------------------------------------------------------------------------
DISPLAY_WINNER
        ST R0, DW_SAVE_R0
        ST R7, DW_SAVE_R7
        JSR PRINT_PLAYER
        LEA R0, WINS_MSG
        PUTS
        LD R0, DW_SAVE_R0
        LD R7, DW_SAVE_R7
        RET

DW_SAVE_R0      .BLKW 1
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
        ADD R0, R0, R1              ; 1 -> '1', 2 -> '2'
        OUT
        LD R0, PP_SAVE_R0
        LD R1, PP_SAVE_R1
        LD R7, PP_SAVE_R7
        RET

PP_SAVE_R0      .BLKW 1
PP_SAVE_R1      .BLKW 1
PP_SAVE_R7      .BLKW 1

; ---------------------------------------------------------------------------------------------
; Game state
; ---------------------------------------------------------------------------------------------
CURRENT_PLAYER  .FILL #1            ; Player 1 always goes first
ROCKS           .FILL #3            ; row A
                .FILL #5            ; row B
                .FILL #8            ; row C

; ---------------------------------------------------------------------------------------------
; Constants and messages
; ---------------------------------------------------------------------------------------------
NEWLINE         .FILL x000A
ASCII_0         .FILL x0030
NEG_ASCII_0     .FILL xFFD0         ; -'0'
ASCII_A         .FILL x0041
NEG_ASCII_A     .FILL xFFBF         ; -'A'
ASCII_ROCK      .FILL x006F         ; 'o'
PLAYER_WORD     .STRINGZ "Player "
PROMPT_MSG      .STRINGZ ", choose a row and number of rocks: "
INVALID_MSG     .STRINGZ "Invalid move. Try again.\n"
WINS_MSG        .STRINGZ " Wins."

        .END
