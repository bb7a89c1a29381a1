#####################################################################
#
# meteors.asm - Meteors: dodge the falling rocks, for MARS 4.5's Bitmap Display and
#               keyboard, in the style of a CSC258 "Assembly Final Project"
#
# Bitmap Display Configuration:
# - Unit width in pixels: 8
# - Unit height in pixels: 8
# - Display width in pixels: 256
# - Display height in pixels: 256
# - Base Address for Display: 0x10040000 (heap)
#
# Keyboard: MARS's "Keyboard and Display MMIO Simulator" (Tools menu), connected to MIPS.
#   a d   move the ship one unit left, right
#   q     quit
#
# THE GAME
#   Rocks (brown) fall from the top of the 32 x 32 field, one row a frame; a new one appears
#   at a random column every other frame. Your ship (blue: a nose on three wing units, at the
#   bottom) moves left and right. A rock that falls past the bottom is dodged and the game
#   gets a little faster; every second one fills a unit of the gold bar on the top row. A
#   rock that hits the ship (or that the ship runs into) turns red and costs one of the three
#   lives (the green units at the top left); the field is cleared and the game goes on.
#   Dodging 56 rocks (the whole bar) wins; losing the third life ends the game with the rock
#   that hit still red. The console says how it ended and how many rocks were dodged.
#
# PACE: THIS GAME IS TIMED BY COUNTING INSTRUCTIONS
#   Every frame ends in a busy-wait loop of FRAME_DELAY rounds (two instructions each): no
#   sleep syscall, so the game runs as fast as the simulator does. A frame is about 160,000
#   instructions at first and 80,000 when the game is fastest. Held to 2 million
#   instructions a second that is about 12 frames a second, 25 at the end; at full speed a
#   game is over in a blink. MARS plays it with the run speed slider at its top (unlimited:
#   a few million instructions a second, as fast as your machine runs MARS; the slider's
#   other settings are 30 instructions a second or fewer); if the rocks fall too fast or too
#   slowly there, change FRAME_DELAY and MIN_FRAME_DELAY.
#
# HOW TO RUN IT
#   MARS 4.5: open the Bitmap Display (the settings above, "Connect to MIPS") and the Keyboard
#   and Display MMIO Simulator ("Connect to MIPS"), assemble, run, type in the lower text
#   area of the keyboard tool.
#   asmdbg run programs/mips/meteors.asm --speed 2M          (this header sets up the display)
#   asmdbg run programs/mips/meteors.asm --keys programs/mips/meteors.keys \
#       --display-png last.png                                 (a scripted game, at once)
#   asmdbg debug programs/mips/meteors.asm --speed 2M, then in gdb-multiarch: watch LIVES or
#   DODGED, continue, type a and d on the console; reverse-continue goes back to the frame
#   before, the rocks where they were.
#
# HOW IT WORKS
#   Unit (x, y) is the word at BASE_ADDRESS + 4 * (32 * y + x), one 0x00RRGGBB colour. Row 0
#   is the status row (lives, then the bar); rocks fall through rows 1-31 and the ship sits
#   on rows 30 (its nose) and 31 (its wings). A frame: look at the keyboard once (a key moves
#   the ship), move every rock down, maybe drop a new one, wait. What a moving rock or ship
#   runs into is told by the colour of the unit it moves to: a rock meeting the ship's blue,
#   or the ship meeting a rock's brown, is a hit. The rocks' columns come from MARS's random
#   generator 0 seeded with RANDOM_SEED (syscall 40), so every game drops the same rocks in
#   the same places, in MARS too: change the seed for another game.
#
# LABELS TO WATCH
#   SHIP_X             the ship's middle column (1-30)
#   LIVES, DODGED      lives left, rocks dodged
#   ROCK_X, ROCK_Y     the rocks, 16 slots: column and row; row 0 is a free slot
#   FRAME_DELAY        rounds of the busy-wait loop each frame
#   FRAME_COUNT        frames played
#
#####################################################################

	.eqv BASE_ADDRESS     0x10040000  # the display's first unit (heap)
	.eqv ROW_1            0x10040080  # unit (0, 1): 128 bytes a row
	.eqv ROW_30           0x10040f00  # unit (0, 30): the ship's nose's row
	.eqv KEYBOARD         0xffff0000  # receiver control; the key is the word after it
	.eqv GOAL             56          # rocks to dodge to win: two for each unit of the bar
	.eqv SPAWN_EVERY      2           # frames between two new rocks
	.eqv MIN_FRAME_DELAY  40000
	.eqv SPEED_UP         1000        # FRAME_DELAY rounds less for every rock dodged
	.eqv CRASH_DELAY      400000      # rounds of the pause that shows a hit
	.eqv BLACK            0x00000000
	.eqv SHIP_COLOUR      0x002080ff
	.eqv ROCK_COLOUR      0x00a06030
	.eqv CRASH_COLOUR     0x00ff2020
	.eqv LIFE_COLOUR      0x0000c000
	.eqv BAR_COLOUR       0x00404040
	.eqv DODGED_COLOUR    0x00ffd000

	.data
SHIP_X:          .word 16
NEW_SHIP_X:      .word 0
LIVES:           .word 3
DODGED:          .word 0
FRAME_DELAY:     .word 80000
FRAME_COUNT:     .word 0
SPAWN_COUNTDOWN: .word 1
RANDOM_SEED:     .word 1969
ROCK_X:          .word 0:16
ROCK_Y:          .word 0:16       # 0: the slot is free
LOST_TEXT:       .asciiz "Game over! Rocks dodged: "
WON_TEXT:        .asciiz "You made it! Rocks dodged: "
QUIT_TEXT:       .asciiz "Bye! Rocks dodged: "

	.text
	.globl main
main:
	# Seed random generator 0, so that the rocks fall in the same places in every game.
	li   $v0, 40
	li   $a0, 0
	lw   $a1, RANDOM_SEED
	syscall

	jal  draw_status
	li   $a0, SHIP_COLOUR
	jal  paint_ship

frame:
	jal  check_keyboard             # $v0 = 1: the ship ran into a rock
	bnez $v0, hit
	jal  move_rocks                 # $v0 = 1: a rock hit the ship
	bnez $v0, hit
	lw   $t0, DODGED
	bge  $t0, GOAL, won
	jal  drop_rock
	lw   $t0, FRAME_COUNT
	addi $t0, $t0, 1
	sw   $t0, FRAME_COUNT
	lw   $t0, FRAME_DELAY           # the rest of the frame: wait
frame_wait:
	addi $t0, $t0, -1
	bgtz $t0, frame_wait
	j    frame

hit:
	# One life less: its unit on the status row turns black.
	lw   $t0, LIVES
	addi $t0, $t0, -1
	sw   $t0, LIVES
	sll  $t1, $t0, 2
	li   $t2, BASE_ADDRESS
	add  $t1, $t1, $t2
	sw   $zero, 0($t1)
	beqz $t0, lost                  # the last one: the hit stays on the screen
	li   $t0, CRASH_DELAY           # let the hit be seen
crash_wait:
	addi $t0, $t0, -1
	bgtz $t0, crash_wait
	jal  clear_rocks
	li   $a0, SHIP_COLOUR           # the ship again, over the red unit
	jal  paint_ship
	j    frame

lost:
	la   $a0, LOST_TEXT
	j    print_and_exit
won:
	la   $a0, WON_TEXT
	j    print_and_exit
quit:
	la   $a0, QUIT_TEXT
print_and_exit:
	li   $v0, 4
	syscall
	li   $v0, 1
	lw   $a0, DODGED
	syscall
	li   $v0, 11
	li   $a0, 10                    # '\n'
	syscall
	li   $v0, 10
	syscall

#--------------------------------------------------------------------
# unit_address: $v0 = the address of unit ($a0, $a1) = BASE_ADDRESS + 128 * y + 4 * x.
#--------------------------------------------------------------------
unit_address:
	sll  $v0, $a1, 7
	sll  $t9, $a0, 2
	add  $v0, $v0, $t9
	li   $t9, BASE_ADDRESS
	add  $v0, $v0, $t9
	jr   $ra

#--------------------------------------------------------------------
# draw_status: row 0: a green unit for each life (x 0, 1, 2), the bar (x 4-31) dark grey.
#--------------------------------------------------------------------
draw_status:
	li   $t0, BASE_ADDRESS
	li   $t1, LIFE_COLOUR
	sw   $t1, 0($t0)
	sw   $t1, 4($t0)
	sw   $t1, 8($t0)
	li   $t1, BAR_COLOUR
	li   $t2, 4                     # x
bar_loop:
	sll  $t3, $t2, 2
	add  $t3, $t3, $t0
	sw   $t1, 0($t3)
	addi $t2, $t2, 1
	blt  $t2, 32, bar_loop
	jr   $ra

#--------------------------------------------------------------------
# paint_ship: the ship's four units in colour $a0: (x, 30), (x - 1, 31), (x, 31), (x + 1, 31)
# for x = SHIP_X.
#--------------------------------------------------------------------
paint_ship:
	lw   $t0, SHIP_X
	li   $t1, ROW_30
	sll  $t2, $t0, 2
	add  $t1, $t1, $t2
	sw   $a0, 0($t1)                # the nose
	sw   $a0, 124($t1)              # the wings, one row (128 bytes) down
	sw   $a0, 128($t1)
	sw   $a0, 132($t1)
	jr   $ra

#--------------------------------------------------------------------
# check_keyboard: if a key is waiting, act on it: a and d move the ship (not off the field),
# q quits. Returns $v0 = 1 when the ship moved into a rock (that unit is drawn red), else 0.
#--------------------------------------------------------------------
check_keyboard:
	addi $sp, $sp, -4
	sw   $ra, 0($sp)
	li   $v0, 0
	li   $t9, KEYBOARD
	lw   $t8, 0($t9)                # ready bit
	andi $t8, $t8, 1
	beqz $t8, keyboard_done
	lw   $t0, 4($t9)                # the key (reading it clears the ready bit)
	beq  $t0, 113, quit             # 'q'
	lw   $t1, SHIP_X
	li   $t2, -1
	beq  $t0, 97, steer             # 'a'
	li   $t2, 1
	beq  $t0, 100, steer            # 'd'
	j    keyboard_done              # any other key: nothing
steer:
	add  $t1, $t1, $t2
	blt  $t1, 1, keyboard_done      # the wings stay on the field (x 0-31)
	bgt  $t1, 30, keyboard_done
	sw   $t1, NEW_SHIP_X
	li   $a0, BLACK                 # off the old place
	jal  paint_ship
	lw   $t1, NEW_SHIP_X
	sw   $t1, SHIP_X
	# The four units it moves onto: a rock on any is a hit.
	li   $t3, ROCK_COLOUR
	li   $t4, ROW_30
	sll  $t2, $t1, 2
	add  $t4, $t4, $t2              # the nose's unit
	move $t5, $t4
	lw   $t6, 0($t5)
	beq  $t6, $t3, ran_into_rock
	addi $t5, $t4, 124
	lw   $t6, 0($t5)
	beq  $t6, $t3, ran_into_rock
	addi $t5, $t4, 128
	lw   $t6, 0($t5)
	beq  $t6, $t3, ran_into_rock
	addi $t5, $t4, 132
	lw   $t6, 0($t5)
	beq  $t6, $t3, ran_into_rock
	li   $a0, SHIP_COLOUR
	jal  paint_ship
	li   $v0, 0
	j    keyboard_done
ran_into_rock:
	li   $a0, SHIP_COLOUR
	jal  paint_ship
	li   $t6, CRASH_COLOUR          # the rock it ran into, red
	sw   $t6, 0($t5)
	li   $v0, 1
keyboard_done:
	lw   $ra, 0($sp)
	addi $sp, $sp, 4
	jr   $ra

#--------------------------------------------------------------------
# move_rocks: every rock one row down. One that leaves the field is dodged (DODGED and the
# bar go up, FRAME_DELAY down); one that moves onto the ship is a hit: it is drawn red and
# $v0 = 1 (the rocks after it stay where they were). Else $v0 = 0.
#--------------------------------------------------------------------
move_rocks:
	addi $sp, $sp, -4
	sw   $ra, 0($sp)
	li   $s0, 0                     # slot offset: 0, 4, ... 36
rock_loop:
	lw   $a1, ROCK_Y($s0)
	beqz $a1, next_rock             # a free slot
	lw   $a0, ROCK_X($s0)
	jal  unit_address
	sw   $zero, 0($v0)              # off its old unit
	addi $a1, $a1, 1
	sw   $a1, ROCK_Y($s0)
	blt  $a1, 32, still_falling
	sw   $zero, ROCK_Y($s0)         # past the bottom: dodged
	jal  dodged
	j    next_rock
still_falling:
	jal  unit_address
	lw   $t0, 0($v0)
	li   $t1, SHIP_COLOUR
	beq  $t0, $t1, rock_hit
	li   $t1, ROCK_COLOUR
	sw   $t1, 0($v0)
next_rock:
	addi $s0, $s0, 4
	blt  $s0, 64, rock_loop
	li   $v0, 0
	j    rocks_moved
rock_hit:
	li   $t1, CRASH_COLOUR
	sw   $t1, 0($v0)
	li   $v0, 1
rocks_moved:
	lw   $ra, 0($sp)
	addi $sp, $sp, 4
	jr   $ra

#--------------------------------------------------------------------
# dodged: one more rock dodged; every second one fills a unit of the bar (x 3 + DODGED / 2)
# with gold. The game gets faster: FRAME_DELAY down by SPEED_UP, not below MIN_FRAME_DELAY.
#--------------------------------------------------------------------
dodged:
	lw   $t0, DODGED
	addi $t0, $t0, 1
	sw   $t0, DODGED
	andi $t1, $t0, 1
	bnez $t1, faster                # odd: the bar stays
	srl  $t0, $t0, 1
	addi $t0, $t0, 3
	sll  $t0, $t0, 2
	li   $t1, BASE_ADDRESS
	add  $t0, $t0, $t1
	li   $t1, DODGED_COLOUR
	sw   $t1, 0($t0)
faster:
	lw   $t0, FRAME_DELAY
	subi $t0, $t0, SPEED_UP
	blt  $t0, MIN_FRAME_DELAY, dodged_done
	sw   $t0, FRAME_DELAY
dodged_done:
	jr   $ra

#--------------------------------------------------------------------
# drop_rock: every SPAWN_EVERY frames, a new rock on row 1 at a random column (0-31), in
# the first free slot (none when all are falling).
#--------------------------------------------------------------------
drop_rock:
	lw   $t0, SPAWN_COUNTDOWN
	addi $t0, $t0, -1
	sw   $t0, SPAWN_COUNTDOWN
	bgtz $t0, drop_done
	li   $t0, SPAWN_EVERY
	sw   $t0, SPAWN_COUNTDOWN
	li   $t1, 0
find_slot:
	lw   $t2, ROCK_Y($t1)
	beqz $t2, slot_found
	addi $t1, $t1, 4
	blt  $t1, 64, find_slot
	jr   $ra                        # all sixteen are falling
slot_found:
	li   $v0, 42                    # random column: 0 to 31
	li   $a0, 0
	li   $a1, 32
	syscall
	sw   $a0, ROCK_X($t1)
	li   $t2, 1
	sw   $t2, ROCK_Y($t1)
	sll  $t3, $a0, 2                # unit (x, 1)
	li   $t4, ROW_1
	add  $t3, $t3, $t4
	li   $t2, ROCK_COLOUR
	sw   $t2, 0($t3)
drop_done:
	jr   $ra

#--------------------------------------------------------------------
# clear_rocks: after a hit: every rock off the field, every slot free.
#--------------------------------------------------------------------
clear_rocks:
	addi $sp, $sp, -4
	sw   $ra, 0($sp)
	li   $s0, 0
clear_loop:
	lw   $a1, ROCK_Y($s0)
	beqz $a1, clear_next
	lw   $a0, ROCK_X($s0)
	jal  unit_address
	sw   $zero, 0($v0)
	sw   $zero, ROCK_Y($s0)
clear_next:
	addi $s0, $s0, 4
	blt  $s0, 64, clear_loop
	lw   $ra, 0($sp)
	addi $sp, $sp, 4
	jr   $ra
