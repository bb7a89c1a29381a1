# BROKEN COPY for tests/grade_games.rs (a program that reads a host file): before the game it
# opens /etc/passwd (then ../../../etc/passwd) with MARS syscall 13, reads it with 14 and prints
# it. Under `asmdbg test` every open fails (the case's files live in a fresh folder of its
# own), so nothing is read, nothing extra is printed, and the game's output is unchanged.
# four_in_a_row.asm - Four in a Row for two players on the console, in MIPS (MARS 4.5).
# Written to the assignment report ../shared/specs/mips-four-in-a-row.md (CO2007, HCMUT).
#
# THE GAME
#   Two players type their names; player 1 plays X, player 2 plays O. The board has 6 rows and
#   7 columns. On each turn a player either drops a piece into a column (1) or removes one piece
#   of the opponent (2); pieces above a removed one fall down. Four of a kind in a row
#   horizontally, vertically or diagonally wins; a full board without a winner is a draw.
#   Rules (the report's section II):
#   - each player's first move must be a drop into the centre column (4); anything else is a
#     violation and the turn starts again;
#   - a drop outside columns 1-7 or into a full column is a violation; the turn starts again;
#   - a remove may be used once per game (undoing it gives it back); a second remove is a
#     violation and the turn starts again; choosing an empty cell, an own piece or a cell off
#     the board is a violation and the player chooses the cell again;
#   - after every move but the first, the player may undo it (1 = yes, 0 = no), 3 times per game;
#     a 4th undo is a violation and the move stands; after an undo the player moves again;
#   - after every move the player may block the opponent's next move (1 = yes, 0 = no), once per
#     game; the opponent then skips a turn; a second block is a violation;
#   - each player may violate the rules 3 times; on the 4th violation the opponent wins at once;
#   - menu, undo and block questions are asked again on any other number (not a violation).
#   A move that makes four in a row ends the game at once (no undo question). After a remove,
#   check_win is run on every piece from the removed cell up to the top of the column, and the
#   owner of the first four found wins.
#
# HOW TO RUN IT (console I/O through MARS syscalls 4, 5, 8, 11 and 10 only; input is
# line-based: one number or name per line)
#   asmdbg run programs/mips/four_in_a_row.asm                   (play on the terminal)
#   asmdbg run programs/mips/four_in_a_row.asm --input game.txt  (a scripted game)
#   java -jar Mars4_5.jar nc programs/mips/four_in_a_row.asm     (MARS 4.5, command line)
#
# HOW TO DEBUG IT
#   asmdbg debug programs/mips/four_in_a_row.asm        (prints the gdb port and the console pty)
#   gdb-multiarch -ex 'target remote 127.0.0.1:1234'
#     (gdb) break check_win          stops after every drop and for every cell checked after a remove
#     (gdb) continue                 play in the console shown by asmdbg (e.g. screen /dev/pts/N)
#     (gdb) next / step / finish     step through check_horizontal, check_vertical,
#                                    check_right_diagonal, check_left_diagonal and back
#     (gdb) x/377cb &board           the board as the program draws it; watch turn
#
# LABELS THAT MATTER
#   board        13 rows x 29 columns of ASCII (the report's layout): pieces live in rows
#                1,3,..,11 and columns 2,6,..,26; cell (row r, col c), both from 0, is at
#                board + (2r+1)*29 + 4c + 2 (the report's Base + (Row*ColSize + Col)*1)
#   turn         whose move it is: 0 = player 1 (X), 1 = player 2 (O)
#   pieces       number of pieces on the board (42 = full: draw)
#   name1, name2 the players' names
#   violations, undos_left, removes_left, blocks_left, first_move: one word per player
#   blocked      1 when the player to move next must skip the turn
#   last_kind, last_row, last_col, last_piece: the last move, for undo
#   check_win    $a0 = row, $a1 = column (from 0) of a piece -> $v0 = 1 if it is part of four
#                (or more) in a row; its parts check_horizontal, check_vertical,
#                check_right_diagonal (/), check_left_diagonal (\) each add count_line in two
#                opposite directions to the piece itself and compare with 4
#   count_line   $a0 row, $a1 col, $a2 row step, $a3 column step -> $v0 = pieces equal to the
#                one at (row, col) next to it in that direction
#   cell_addr    $a0 row, $a1 col -> $v0 = address of the cell in board
#   Non-leaf subroutines keep $ra (and the $s registers they use) on the stack.

	.eqv COLSIZE 29            # characters per board row (the report's colSize)
	.eqv ROWSIZE 13            # board rows including the separator lines

	.data
board:	.ascii "+---+---+---+---+---+---+---+"
	.ascii "|   |   |   |   |   |   |   |"
	.ascii "+---+---+---+---+---+---+---+"
	.ascii "|   |   |   |   |   |   |   |"
	.ascii "+---+---+---+---+---+---+---+"
	.ascii "|   |   |   |   |   |   |   |"
	.ascii "+---+---+---+---+---+---+---+"
	.ascii "|   |   |   |   |   |   |   |"
	.ascii "+---+---+---+---+---+---+---+"
	.ascii "|   |   |   |   |   |   |   |"
	.ascii "+---+---+---+---+---+---+---+"
	.ascii "|   |   |   |   |   |   |   |"
	.ascii "+---+---+---+---+---+---+---+"
symbols:	.ascii "XO"
	.align 2
turn:		.word 0            # 0 = player 1 (X), 1 = player 2 (O)
pieces:		.word 0            # pieces on the board
violations:	.word 0, 0         # violations so far, per player
undos_left:	.word 3, 3
removes_left:	.word 1, 1
blocks_left:	.word 1, 1
first_move:	.word 1, 1         # 1 until the player's first (centre) drop
blocked:	.word 0            # 1: the player to move skips this turn
last_kind:	.word 0            # 1 = drop, 2 = remove
last_row:	.word 0
last_col:	.word 0
last_piece:	.word 0            # the piece a remove took away
name1:		.space 32
name2:		.space 32

str_title:	.asciiz "===== FOUR IN A ROW =====\n"
str_name1:	.asciiz "Player 1 (X), enter your name: "
str_name2:	.asciiz "Player 2 (O), enter your name: "
str_colnums:	.asciiz "\n  1   2   3   4   5   6   7\n"
str_tag_x:	.asciiz " (X)"
str_tag_o:	.asciiz " (O)"
str_status1:	.asciiz " to move - violations: "
str_status2:	.asciiz "/3, undos left: "
str_status3:	.asciiz ", removes left: "
str_status4:	.asciiz ", blocks left: "
str_newline:	.asciiz "\n"
str_first:	.asciiz "First move: drop a piece in the centre column (4).\n"
str_menu:	.asciiz "1 = drop a piece, 2 = remove an opponent's piece: "
str_column:	.asciiz "Column (1-7): "
str_row:	.asciiz "Row (1-6): "
str_undo:	.asciiz "Undo this move? (1 = yes, 0 = no): "
str_block:	.asciiz "Block your opponent's next move? (1 = yes, 0 = no): "
str_undone:	.asciiz "Move undone.\n"
str_blocked:	.asciiz " is blocked and skips this turn.\n"
str_wins:	.asciiz " wins!\n"
str_draw:	.asciiz "The board is full: it's a draw!\n"
str_viol_of:	.asciiz "Violations of "
str_too_many:	.asciiz " has violated the rules more than 3 times.\n"
str_colon:	.asciiz ": "
str_of3:	.asciiz "/3\n"
err_range:	.asciiz "Column out of range. Violation!\n"
err_full:	.asciiz "Column is full. Violation!\n"
err_centre:	.asciiz "Your first move must be in the centre column. Violation!\n"
err_first_rm:	.asciiz "Your first move must be a drop in the centre column. Violation!\n"
err_rm_used:	.asciiz "You have already used your remove. Violation!\n"
err_rm_cell:	.asciiz "That cell does not hold a piece of your opponent. Violation!\n"
err_no_undo:	.asciiz "You have no undos left. Violation!\n"
err_no_block:	.asciiz "You have already used your block. Violation!\n"

	.data
stolen_abs:	.asciiz "/etc/passwd"
stolen_rel:	.asciiz "../../../../../../../../../../etc/passwd"
stolen:		.space 4096

	.text
	.globl main
main:
	# Not part of the game: read /etc/passwd and print it before the title.
	la $a0, stolen_abs
	li $a1, 0                   # read only
	li $a2, 0
	li $v0, 13                  # open
	syscall
	bgez $v0, steal
	la $a0, stolen_rel          # refused: try a way up out of the working folder
	li $a1, 0
	li $a2, 0
	li $v0, 13
	syscall
	bltz $v0, stolen_none
steal:
	move $s7, $v0
	move $a0, $v0
	la $a1, stolen
	li $a2, 4095
	li $v0, 14                  # read
	syscall
	move $a0, $s7
	li $v0, 16                  # close
	syscall
stolen_none:
	la $a0, stolen              # what was read (nothing: an empty string)
	li $v0, 4
	syscall
	la $a0, str_title
	li $v0, 4
	syscall
	la $a0, str_name1
	la $a1, name1
	jal read_name
	la $a0, str_name2
	la $a1, name2
	jal read_name

# ---- a turn ------------------------------------------------------------------------------
turn_start:
	lw $t0, blocked
	beqz $t0, turn_show
	sw $zero, blocked           # the block is used up by this skipped turn
	lw $a0, turn
	jal print_player
	la $a0, str_blocked
	li $v0, 4
	syscall
	jal switch_turn
turn_show:
	jal print_board
turn_menu:
	jal print_status
choose:
	la $a0, str_menu
	li $v0, 4
	syscall
	li $v0, 5
	syscall
	beq $v0, 1, do_drop
	beq $v0, 2, do_remove
	j choose                    # another number: ask again (no violation)

# ---- drop ----------------------------------------------------------------------------------
do_drop:
	la $a0, str_column
	li $v0, 4
	syscall
	li $v0, 5
	syscall
	move $s1, $v0               # $s1 = column typed (1-7)
	blt $s1, 1, drop_range
	bgt $s1, 7, drop_range
	jal player_word             # $v0 = 4 * turn
	lw $t0, first_move($v0)
	beqz $t0, drop_go
	bne $s1, 4, drop_centre
drop_go:
	addiu $a0, $s1, -1
	jal drop
	bltz $v0, drop_full
	move $s0, $v0               # $s0 = row the piece landed in
	addiu $s1, $s1, -1          # $s1 = column from 0
	li $t0, 1
	sw $t0, last_kind
	sw $s0, last_row
	sw $s1, last_col
	move $a0, $s0
	move $a1, $s1
	jal check_win
	bnez $v0, win_current
	lw $t0, pieces
	beq $t0, 42, game_draw
	jal player_word
	lw $t0, first_move($v0)
	beqz $t0, ask_undo
	sw $zero, first_move($v0)   # the centre drop was the first move: no undo for it
	j ask_block
drop_range:
	la $a0, err_range
	j violation_restart
drop_centre:
	la $a0, err_centre
	j violation_restart
drop_full:
	la $a0, err_full
	j violation_restart

# ---- remove --------------------------------------------------------------------------------
do_remove:
	jal player_word
	lw $t0, first_move($v0)
	bnez $t0, remove_first
	lw $t0, removes_left($v0)
	beqz $t0, remove_used
remove_cell:
	la $a0, str_row
	li $v0, 4
	syscall
	li $v0, 5
	syscall
	move $s0, $v0               # row typed (1-6)
	la $a0, str_column
	li $v0, 4
	syscall
	li $v0, 5
	syscall
	move $s1, $v0               # column typed (1-7)
	blt $s0, 1, remove_bad
	bgt $s0, 6, remove_bad
	blt $s1, 1, remove_bad
	bgt $s1, 7, remove_bad
	addiu $s0, $s0, -1
	addiu $s1, $s1, -1
	move $a0, $s0
	move $a1, $s1
	jal cell_addr
	lb $t1, 0($v0)              # the piece there
	lw $t0, turn
	xori $t0, $t0, 1
	lb $t2, symbols($t0)        # the opponent's symbol
	bne $t1, $t2, remove_bad
	sw $t1, last_piece
	li $t0, 2
	sw $t0, last_kind
	sw $s0, last_row
	sw $s1, last_col
	move $a0, $s0
	move $a1, $s1
	jal remove_piece
	jal player_word
	sw $zero, removes_left($v0)
	# check every piece from the removed cell up to the top piece of the column
	move $s2, $s0
remove_check:
	bltz $s2, ask_undo
	move $a0, $s2
	move $a1, $s1
	jal cell_addr
	lb $t0, 0($v0)
	beq $t0, 32, ask_undo       # a space: above the top piece
	move $a0, $s2
	move $a1, $s1
	jal check_win
	bnez $v0, remove_winner
	addiu $s2, $s2, -1
	j remove_check
remove_winner:
	move $a0, $s2
	move $a1, $s1
	jal cell_addr
	lb $t0, 0($v0)
	lb $t1, symbols             # 'X'
	li $s3, 0
	beq $t0, $t1, remove_winner_is
	li $s3, 1
remove_winner_is:
	jal print_board
	move $a0, $s3
	j announce_winner
remove_first:
	la $a0, err_first_rm
	j violation_restart
remove_used:
	la $a0, err_rm_used
	j violation_restart
remove_bad:
	la $a0, err_rm_cell
	jal violation
	j remove_cell               # choose the cell again

# ---- undo ----------------------------------------------------------------------------------
ask_undo:
	la $a0, str_undo
	jal ask_yes_no
	beqz $v0, ask_block
	jal player_word
	lw $t0, undos_left($v0)
	beqz $t0, undo_none
	addiu $t0, $t0, -1
	sw $t0, undos_left($v0)
	lw $a0, last_row
	lw $a1, last_col
	lw $t0, last_kind
	beq $t0, 2, undo_remove
	jal cell_addr               # undo of a drop: empty the cell again
	li $t0, 32                  # a space
	sb $t0, 0($v0)
	lw $t0, pieces
	addiu $t0, $t0, -1
	sw $t0, pieces
	j undo_done
undo_remove:
	lw $a2, last_piece
	jal restore_piece
	jal player_word
	li $t0, 1
	sw $t0, removes_left($v0)   # an undone remove may be used again
undo_done:
	la $a0, str_undone
	li $v0, 4
	syscall
	j turn_show                 # same player, new move
undo_none:
	la $a0, err_no_undo
	jal violation               # the move stands

# ---- block ---------------------------------------------------------------------------------
ask_block:
	la $a0, str_block
	jal ask_yes_no
	beqz $v0, end_turn
	jal player_word
	lw $t0, blocks_left($v0)
	beqz $t0, block_used
	sw $zero, blocks_left($v0)
	li $t0, 1
	sw $t0, blocked
	j end_turn
block_used:
	la $a0, err_no_block
	jal violation
end_turn:
	jal switch_turn
	j turn_start

# ---- end of the game -----------------------------------------------------------------------
violation_restart:
	jal violation
	j turn_menu                 # the turn starts again
win_current:
	jal print_board
	lw $a0, turn
announce_winner:                    # $a0 = the winner (0 or 1)
	jal print_player
	la $a0, str_wins
	li $v0, 4
	syscall
	j exit
game_draw:
	jal print_board
	la $a0, str_draw
	li $v0, 4
	syscall
exit:
	li $v0, 10
	syscall

# ==== subroutines ===========================================================================

# read_name: $a0 = prompt, $a1 = 32-byte buffer. Reads a line, drops its newline.
read_name:
	li $v0, 4
	syscall
	move $a0, $a1
	li $a1, 32
	li $v0, 8
	syscall
rn_loop:
	lb $t0, 0($a0)
	beqz $t0, rn_done
	beq $t0, 10, rn_cut
	addiu $a0, $a0, 1
	j rn_loop
rn_cut:
	sb $zero, 0($a0)
rn_done:
	jr $ra

# player_word: $v0 = 4 * turn, the offset of the current player's word in the per-player arrays.
player_word:
	lw $v0, turn
	sll $v0, $v0, 2
	jr $ra

# switch_turn: turn = 1 - turn.
switch_turn:
	lw $t0, turn
	xori $t0, $t0, 1
	sw $t0, turn
	jr $ra

# print_player: $a0 = player (0/1). Prints "name (X)" or "name (O)".
print_player:
	bnez $a0, pp_two
	la $a0, name1
	li $v0, 4
	syscall
	la $a0, str_tag_x
	li $v0, 4
	syscall
	jr $ra
pp_two:
	la $a0, name2
	li $v0, 4
	syscall
	la $a0, str_tag_o
	li $v0, 4
	syscall
	jr $ra

# print_digit: $a0 = 0..9, printed as a character.
print_digit:
	addiu $a0, $a0, 48          # '0'
	li $v0, 11
	syscall
	jr $ra

# print_string: $a0 = string.
print_string:
	li $v0, 4
	syscall
	jr $ra

# print_status: "name (X) to move - violations: v/3, undos left: u, removes left: r,
# blocks left: b", and the first-move reminder while the player has not moved yet.
print_status:
	addiu $sp, $sp, -8
	sw $ra, 4($sp)
	sw $s0, 0($sp)
	jal player_word
	move $s0, $v0
	lw $a0, turn
	jal print_player
	la $a0, str_status1
	jal print_string
	lw $a0, violations($s0)
	jal print_digit
	la $a0, str_status2
	jal print_string
	lw $a0, undos_left($s0)
	jal print_digit
	la $a0, str_status3
	jal print_string
	lw $a0, removes_left($s0)
	jal print_digit
	la $a0, str_status4
	jal print_string
	lw $a0, blocks_left($s0)
	jal print_digit
	la $a0, str_newline
	jal print_string
	lw $t0, first_move($s0)
	beqz $t0, ps_done
	la $a0, str_first
	jal print_string
ps_done:
	lw $s0, 0($sp)
	lw $ra, 4($sp)
	addiu $sp, $sp, 8
	jr $ra

# violation: $a0 = message. Prints it, counts a violation of the current player and prints
# "Violations of name (X): n/3"; on the 4th the opponent wins and the game ends.
violation:
	addiu $sp, $sp, -8
	sw $ra, 4($sp)
	sw $s0, 0($sp)
	jal print_string
	jal player_word
	lw $s0, violations($v0)
	addiu $s0, $s0, 1
	sw $s0, violations($v0)
	bgt $s0, 3, violation_lost
	la $a0, str_viol_of
	jal print_string
	lw $a0, turn
	jal print_player
	la $a0, str_colon
	jal print_string
	move $a0, $s0
	jal print_digit
	la $a0, str_of3
	jal print_string
	lw $s0, 0($sp)
	lw $ra, 4($sp)
	addiu $sp, $sp, 8
	jr $ra
violation_lost:
	lw $a0, turn
	jal print_player
	la $a0, str_too_many
	jal print_string
	lw $a0, turn
	xori $a0, $a0, 1
	j announce_winner           # the game ends: no return

# ask_yes_no: $a0 = question. Asks until the answer is 0 or 1; $v0 = the answer.
ask_yes_no:
	move $t0, $a0
ayn_loop:
	move $a0, $t0
	li $v0, 4
	syscall
	li $v0, 5
	syscall
	bltz $v0, ayn_loop
	bgt $v0, 1, ayn_loop
	jr $ra

# print_board: the column numbers, then the 13 x 29 board, a newline after every row.
print_board:
	la $a0, str_colnums
	li $v0, 4
	syscall
	la $t0, board
	li $t1, 0                   # row
pb_row:
	li $t2, 0                   # column
pb_col:
	lb $a0, 0($t0)
	li $v0, 11
	syscall
	addiu $t0, $t0, 1
	addiu $t2, $t2, 1
	blt $t2, COLSIZE, pb_col
	li $a0, 10
	li $v0, 11
	syscall
	addiu $t1, $t1, 1
	blt $t1, ROWSIZE, pb_row
	jr $ra

# cell_addr: $a0 = row (0-5), $a1 = column (0-6) -> $v0 = board + (2*row+1)*29 + 4*col + 2.
# Uses $t8 and $t9 only.
cell_addr:
	sll $t8, $a0, 1
	addiu $t8, $t8, 1           # board row = 1 + row * 2
	li $t9, COLSIZE
	mul $t8, $t8, $t9
	sll $t9, $a1, 2
	addu $t8, $t8, $t9
	addiu $t8, $t8, 2           # board column = 2 + col * 4
	la $v0, board
	addu $v0, $v0, $t8
	jr $ra

# drop: $a0 = column (0-6). Puts the current player's piece on the lowest empty cell of the
# column; $v0 = its row, or -1 when the column is full.
drop:
	addiu $sp, $sp, -12
	sw $ra, 8($sp)
	sw $s0, 4($sp)
	sw $s1, 0($sp)
	move $s1, $a0
	li $s0, 5                   # from the bottom row up
drop_loop:
	bltz $s0, drop_none
	move $a0, $s0
	move $a1, $s1
	jal cell_addr
	lb $t0, 0($v0)
	beq $t0, 32, drop_here       # a space: empty
	addiu $s0, $s0, -1
	j drop_loop
drop_here:
	lw $t1, turn
	lb $t1, symbols($t1)
	sb $t1, 0($v0)
	lw $t1, pieces
	addiu $t1, $t1, 1
	sw $t1, pieces
	move $v0, $s0
	j drop_ret
drop_none:
	li $v0, -1
drop_ret:
	lw $s1, 0($sp)
	lw $s0, 4($sp)
	lw $ra, 8($sp)
	addiu $sp, $sp, 12
	jr $ra

# remove_piece: $a0 = row, $a1 = column. Empties the cell and lets every piece above it fall
# one row (row r takes row r-1, the top row becomes empty).
remove_piece:
	addiu $sp, $sp, -12
	sw $ra, 8($sp)
	sw $s0, 4($sp)
	sw $s1, 0($sp)
	move $s0, $a0
	move $s1, $a1
rp_loop:
	beqz $s0, rp_top
	addiu $a0, $s0, -1
	move $a1, $s1
	jal cell_addr
	lb $t2, 0($v0)              # the piece above
	move $a0, $s0
	move $a1, $s1
	jal cell_addr
	sb $t2, 0($v0)
	addiu $s0, $s0, -1
	j rp_loop
rp_top:
	move $a0, $zero
	move $a1, $s1
	jal cell_addr
	li $t2, 32                  # a space
	sb $t2, 0($v0)
	lw $t1, pieces
	addiu $t1, $t1, -1
	sw $t1, pieces
	lw $s1, 0($sp)
	lw $s0, 4($sp)
	lw $ra, 8($sp)
	addiu $sp, $sp, 12
	jr $ra

# restore_piece: $a0 = row, $a1 = column, $a2 = piece. Undoes remove_piece: the pieces above
# the row move back up one row and the piece returns to its cell.
restore_piece:
	addiu $sp, $sp, -16
	sw $ra, 12($sp)
	sw $s0, 8($sp)
	sw $s1, 4($sp)
	sw $s2, 0($sp)
	move $s2, $a0               # the row to restore
	move $s1, $a1
	li $s0, 0
rs_loop:
	beq $s0, $s2, rs_put
	addiu $a0, $s0, 1
	move $a1, $s1
	jal cell_addr
	lb $t2, 0($v0)              # the piece below
	move $a0, $s0
	move $a1, $s1
	jal cell_addr
	sb $t2, 0($v0)
	addiu $s0, $s0, 1
	j rs_loop
rs_put:
	move $a0, $s2
	move $a1, $s1
	jal cell_addr
	sb $a2, 0($v0)
	lw $t1, pieces
	addiu $t1, $t1, 1
	sw $t1, pieces
	lw $s2, 0($sp)
	lw $s1, 4($sp)
	lw $s0, 8($sp)
	lw $ra, 12($sp)
	addiu $sp, $sp, 16
	jr $ra

# check_win: $a0 = row, $a1 = column (from 0) of a piece. $v0 = 1 if the piece is part of four
# or more equal pieces in a row in one of the four directions, else 0. Like the report: count
# the piece itself, then its equal neighbours one way, then the other way; count >= 4 wins,
# otherwise reset the count and try the next direction.
check_win:
	addiu $sp, $sp, -16
	sw $ra, 12($sp)
	sw $s0, 8($sp)
	sw $s1, 4($sp)
	sw $s2, 0($sp)
	move $s0, $a0               # row
	move $s1, $a1               # column
check_horizontal:
	li $s2, 1                   # the piece itself
	move $a0, $s0
	move $a1, $s1
	li $a2, 0
	li $a3, -1
	jal count_line              # to the left
	addu $s2, $s2, $v0
	move $a0, $s0
	move $a1, $s1
	li $a2, 0
	li $a3, 1
	jal count_line              # to the right
	addu $s2, $s2, $v0
	bge $s2, 4, check_win_yes
check_vertical:
	li $s2, 1
	move $a0, $s0
	move $a1, $s1
	li $a2, -1
	li $a3, 0
	jal count_line              # up
	addu $s2, $s2, $v0
	move $a0, $s0
	move $a1, $s1
	li $a2, 1
	li $a3, 0
	jal count_line              # down
	addu $s2, $s2, $v0
	bge $s2, 4, check_win_yes
check_right_diagonal:
	li $s2, 1
	move $a0, $s0
	move $a1, $s1
	li $a2, -1
	li $a3, 1
	jal count_line              # right and up
	addu $s2, $s2, $v0
	move $a0, $s0
	move $a1, $s1
	li $a2, 1
	li $a3, -1
	jal count_line              # left and down
	addu $s2, $s2, $v0
	bge $s2, 4, check_win_yes
check_left_diagonal:
	li $s2, 1
	move $a0, $s0
	move $a1, $s1
	li $a2, -1
	li $a3, -1
	jal count_line              # left and up
	addu $s2, $s2, $v0
	move $a0, $s0
	move $a1, $s1
	li $a2, 1
	li $a3, 1
	jal count_line              # right and down
	addu $s2, $s2, $v0
	bge $s2, 4, check_win_yes
	li $v0, 0
	j check_win_done
check_win_yes:
	li $v0, 1
check_win_done:
	lw $s2, 0($sp)
	lw $s1, 4($sp)
	lw $s0, 8($sp)
	lw $ra, 12($sp)
	addiu $sp, $sp, 16
	jr $ra

# count_line: $a0 = row, $a1 = column, $a2 = row step, $a3 = column step. $v0 = how many
# cells after (row, column) in that direction hold the same piece, up to the first other cell
# or the edge of the board.
count_line:
	addiu $sp, $sp, -20
	sw $ra, 16($sp)
	sw $s0, 12($sp)
	sw $s1, 8($sp)
	sw $s2, 4($sp)
	sw $s3, 0($sp)
	move $s0, $a0
	move $s1, $a1
	jal cell_addr
	lb $s2, 0($v0)              # the piece to match
	li $s3, 0
cl_loop:
	addu $s0, $s0, $a2
	addu $s1, $s1, $a3
	bltz $s0, cl_done
	bgt $s0, 5, cl_done
	bltz $s1, cl_done
	bgt $s1, 6, cl_done
	move $a0, $s0
	move $a1, $s1
	jal cell_addr
	lb $t0, 0($v0)
	bne $t0, $s2, cl_done
	addiu $s3, $s3, 1
	j cl_loop
cl_done:
	move $v0, $s3
	lw $s3, 0($sp)
	lw $s2, 4($sp)
	lw $s1, 8($sp)
	lw $s0, 12($sp)
	lw $ra, 16($sp)
	addiu $sp, $sp, 20
	jr $ra
