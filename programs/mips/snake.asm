#####################################################################
#
# snake.asm - Snake for MARS 4.5's Bitmap Display and keyboard, in the style of a
#             CSC258 "Assembly Final Project"
#
# Bitmap Display Configuration:
# - Unit width in pixels: 8
# - Unit height in pixels: 8
# - Display width in pixels: 256
# - Display height in pixels: 256
# - Base Address for Display: 0x10008000 ($gp)
#
# Keyboard: MARS's "Keyboard and Display MMIO Simulator" (Tools menu), connected to MIPS.
#   w a s d   steer up, left, down, right (turning straight back is ignored)
#   p         pause; p again goes on
#   q         quit
#
# THE GAME
#   The playing field is 32 x 32 units with a grey wall around it. The snake starts 4 units
#   long in the middle of the left half, heading right. Each frame it moves one unit; eating
#   the red food makes it one unit longer, adds 1 to the score, places new food at random and
#   makes the game a little faster. Running into the wall or into itself ends the game: the
#   unit it ran into turns orange and the score is printed on the console.
#
# HOW TO RUN IT
#   MARS 4.5: open the Bitmap Display (the settings above, "Connect to MIPS") and the Keyboard
#   and Display MMIO Simulator ("Connect to MIPS"), assemble, run, type in the lower text
#   area of the keyboard tool.
#   asmdbg run programs/mips/snake.asm                      (this header sets up the display)
#   asmdbg run programs/mips/snake.asm --keys programs/mips/snake.keys --virtual-time \
#       --display-png last.png                               (a scripted game)
#   asmdbg debug programs/mips/snake.asm, then in gdb-multiarch: watch SNAKE_LENGTH,
#   or watch *(int*)0x10008828 (unit (10, 16)) and reverse-continue to the store that drew it
#
# HOW IT WORKS
#   Unit (x, y) is the word at BASE_ADDRESS + 4 * (32 * y + x), one 0x00RRGGBB colour.
#   The game reads the colour of the unit the head moves to: black is free, red is food,
#   anything else (wall, snake) is a crash. SNAKE_BODY holds the unit numbers (32 * y + x)
#   of the snake, head first; each move shifts it down by one word and writes the new head
#   in front. The random numbers come from MARS's generator 0 seeded with RANDOM_SEED
#   (syscall 40), so every game places the food in the same places: change the seed for
#   another game.
#
# LABELS TO WATCH
#   CURRENT_DIRECTION  the key of the direction the snake moves: 119 w, 97 a, 115 s, 100 d
#   SNAKE_LENGTH       units in the snake
#   SNAKE_BODY         its units, head first (SNAKE_LENGTH words are used)
#   FOOD_POSITION      the unit the food is on
#   SCORE              food eaten so far
#   FRAME_DELAY        milliseconds slept each frame (syscall 32)
#   FRAME_COUNT        frames played
#   PAUSED             1 while the game is paused
#
#####################################################################

	.eqv BASE_ADDRESS   0x10008000  # the display's first unit ($gp)
	.eqv KEYBOARD       0xffff0000  # receiver control; the key is the word after it
	.eqv UNITS_PER_ROW  32
	.eqv BLACK          0x00000000
	.eqv WALL_COLOUR    0x00808080
	.eqv BODY_COLOUR    0x00008800
	.eqv HEAD_COLOUR    0x0000ff00
	.eqv FOOD_COLOUR    0x00ff0000
	.eqv CRASH_COLOUR   0x00ff8800

	.data
CURRENT_DIRECTION: .word 100        # 'd': right
SNAKE_LENGTH:      .word 4
SCORE:             .word 0
FOOD_POSITION:     .word 0
FRAME_DELAY:       .word 100
FRAME_COUNT:       .word 0
PAUSED:            .word 0
RANDOM_SEED:       .word 258
SNAKE_BODY:        .word 0:1024     # unit numbers, head first
GAME_OVER_TEXT:    .asciiz "Game over! Score: "
QUIT_TEXT:         .asciiz "Bye! Score: "

	.text
	.globl main
main:
	# Seed random generator 0, so that the food goes to the same places in every game.
	li   $v0, 40
	li   $a0, 0
	lw   $a1, RANDOM_SEED
	syscall

	jal  draw_walls

	# The snake: 4 units on row 16, head at column 8, tail at column 5.
	li   $t0, 520                   # 32 * 16 + 8
	li   $t1, 0                     # offset into SNAKE_BODY
	li   $t2, 4
	li   $t3, HEAD_COLOUR
init_snake:
	sw   $t0, SNAKE_BODY($t1)
	sll  $t4, $t0, 2
	addi $t4, $t4, BASE_ADDRESS
	sw   $t3, 0($t4)                # draw the unit
	li   $t3, BODY_COLOUR           # every unit after the head
	addi $t0, $t0, -1
	addi $t1, $t1, 4
	addi $t2, $t2, -1
	bnez $t2, init_snake

	jal  place_food

game_loop:
	jal  check_keyboard
	jal  move_snake
	bnez $v0, game_over
	lw   $t0, FRAME_COUNT
	addi $t0, $t0, 1
	sw   $t0, FRAME_COUNT
	li   $v0, 32                    # sleep
	lw   $a0, FRAME_DELAY
	syscall
	j    game_loop

game_over:
	la   $a0, GAME_OVER_TEXT
	j    print_score_and_exit
quit:
	la   $a0, QUIT_TEXT
print_score_and_exit:
	li   $v0, 4
	syscall
	li   $v0, 1
	lw   $a0, SCORE
	syscall
	li   $v0, 11
	li   $a0, 10                    # '\n'
	syscall
	li   $v0, 10
	syscall

#--------------------------------------------------------------------
# draw_walls: the grey border, row 0, row 31, column 0 and column 31.
#--------------------------------------------------------------------
draw_walls:
	li   $t0, BASE_ADDRESS
	li   $t1, WALL_COLOUR
	li   $t2, 0                     # x or y, 0 to 31
walls_loop:
	sll  $t3, $t2, 2
	add  $t3, $t3, $t0
	sw   $t1, 0($t3)                # (i, 0)
	sw   $t1, 3968($t3)             # (i, 31): 4 * 32 * 31 bytes further
	sll  $t3, $t2, 7                # 128 bytes per row
	add  $t3, $t3, $t0
	sw   $t1, 0($t3)                # (0, i)
	sw   $t1, 124($t3)              # (31, i)
	addi $t2, $t2, 1
	blt  $t2, UNITS_PER_ROW, walls_loop
	jr   $ra

#--------------------------------------------------------------------
# check_keyboard: if a key is waiting, act on it: w a s d set CURRENT_DIRECTION (not the
# opposite of the current one), p pauses until the next p, q quits.
#--------------------------------------------------------------------
check_keyboard:
	li   $t9, KEYBOARD
	lw   $t8, 0($t9)                # ready bit
	andi $t8, $t8, 1
	beqz $t8, keyboard_done
	lw   $t0, 4($t9)                # the key (reading it clears the ready bit)
	lw   $t1, CURRENT_DIRECTION
	beq  $t0, 113, quit             # 'q'
	beq  $t0, 112, pause            # 'p'
	beq  $t0, 119, key_up           # 'w'
	beq  $t0, 97, key_left          # 'a'
	beq  $t0, 115, key_down         # 's'
	beq  $t0, 100, key_right        # 'd'
	jr   $ra                        # any other key: nothing
key_up:
	beq  $t1, 115, keyboard_done    # moving down: cannot turn back
	j    set_direction
key_left:
	beq  $t1, 100, keyboard_done
	j    set_direction
key_down:
	beq  $t1, 119, keyboard_done
	j    set_direction
key_right:
	beq  $t1, 97, keyboard_done
set_direction:
	sw   $t0, CURRENT_DIRECTION
keyboard_done:
	jr   $ra

pause:
	li   $t0, 1
	sw   $t0, PAUSED
pause_wait:
	li   $v0, 32                    # sleep a little, then look at the keyboard again
	li   $a0, 50
	syscall
	lw   $t8, 0($t9)
	andi $t8, $t8, 1
	beqz $t8, pause_wait
	lw   $t0, 4($t9)
	beq  $t0, 113, quit             # 'q' quits while paused too
	bne  $t0, 112, pause_wait       # only 'p' goes on
	sw   $zero, PAUSED
	jr   $ra

#--------------------------------------------------------------------
# move_snake: one step in CURRENT_DIRECTION. Returns $v0 = 1 when the snake crashed (the
# unit it ran into is drawn orange), else 0.
#--------------------------------------------------------------------
move_snake:
	addi $sp, $sp, -4
	sw   $ra, 0($sp)
	lw   $s0, SNAKE_BODY            # the head's unit
	lw   $t1, CURRENT_DIRECTION
	li   $t2, -32                   # w: one row up
	beq  $t1, 119, step_chosen
	li   $t2, 32                    # s: one row down
	beq  $t1, 115, step_chosen
	li   $t2, -1                    # a: one unit left
	beq  $t1, 97, step_chosen
	li   $t2, 1                     # d: one unit right
step_chosen:
	add  $s1, $s0, $t2              # the new head's unit
	sll  $s2, $s1, 2
	addi $s2, $s2, BASE_ADDRESS     # ... and its address
	lw   $s3, SNAKE_LENGTH
	lw   $t3, 0($s2)                # what is there?
	li   $s4, 0                     # 1 when the snake eats
	li   $t4, FOOD_COLOUR
	bne  $t3, $t4, no_food
	li   $s4, 1
	addi $s3, $s3, 1                # one unit longer: the tail stays
	sw   $s3, SNAKE_LENGTH
	lw   $t5, SCORE
	addi $t5, $t5, 1
	sw   $t5, SCORE
	lw   $t5, FRAME_DELAY           # a little faster, down to 40 ms
	ble  $t5, 40, shift_body
	addi $t5, $t5, -5
	sw   $t5, FRAME_DELAY
	j    shift_body
no_food:
	# The tail moves on: erase it first, so that the head may follow it into its unit.
	addi $t5, $s3, -1
	sll  $t5, $t5, 2
	lw   $t6, SNAKE_BODY($t5)
	sll  $t6, $t6, 2
	addi $t6, $t6, BASE_ADDRESS
	sw   $zero, 0($t6)              # the tail's unit turns black
	lw   $t3, 0($s2)
	beqz $t3, shift_body            # black: free
	li   $t4, CRASH_COLOUR          # wall or snake: crash
	sw   $t4, 0($s2)
	li   $v0, 1
	j    move_done
shift_body:
	# SNAKE_BODY[i] = SNAKE_BODY[i - 1] for i = length - 1 down to 1, then the new head.
	la   $t7, SNAKE_BODY
	addi $t5, $s3, -1
	sll  $t5, $t5, 2
	add  $t5, $t5, $t7              # address of the last unit
shift_loop:
	beq  $t5, $t7, shift_done
	lw   $t6, -4($t5)
	sw   $t6, 0($t5)
	addi $t5, $t5, -4
	j    shift_loop
shift_done:
	sw   $s1, SNAKE_BODY
	sll  $t6, $s0, 2                # the old head becomes body
	addi $t6, $t6, BASE_ADDRESS
	li   $t7, BODY_COLOUR
	sw   $t7, 0($t6)
	li   $t7, HEAD_COLOUR           # draw the new head
	sw   $t7, 0($s2)
	beqz $s4, moved
	jal  place_food
moved:
	li   $v0, 0
move_done:
	lw   $ra, 0($sp)
	addi $sp, $sp, 4
	jr   $ra

#--------------------------------------------------------------------
# place_food: a random black unit inside the walls (x and y 1 to 30) turns red and becomes
# FOOD_POSITION.
#--------------------------------------------------------------------
place_food:
	li   $v0, 42                    # random x: 0 to 29, plus 1
	li   $a0, 0
	li   $a1, 30
	syscall
	addi $t0, $a0, 1
	li   $v0, 42                    # random y
	li   $a0, 0
	li   $a1, 30
	syscall
	addi $t1, $a0, 1
	sll  $t1, $t1, 5                # unit = 32 * y + x
	add  $t0, $t0, $t1
	sll  $t2, $t0, 2
	addi $t2, $t2, BASE_ADDRESS
	lw   $t3, 0($t2)
	bnez $t3, place_food            # taken by the snake: try again
	li   $t3, FOOD_COLOUR
	sw   $t3, 0($t2)
	sw   $t0, FOOD_POSITION
	jr   $ra
