@ tictactoe.asm - RISC-Tac-Toe - a state verifier for 6x6 Tic-Tac-Toe, in SimpleRISC
@ (spec - ../shared/specs/simplerisc-tictactoe-verifier.md, IIT Delhi ACOL 216 Assignment 1).
@
@ Input - the board, 36 words in row-major order at byte address 1000 - cell (i, j) is the word at
@         1000 + 4 * (6 * i + j), holding 0 (empty), 1 (player 1) or 2 (player 2).
@         The program only reads the board; it never writes it.
@ Output - one word at byte address 1144, written exactly once, as the last instruction.
@         -1 illegal state, 0 legal and a draw, 1 player 1 wins, 2 player 2 wins.
@
@ Rules (from the spec) - the state is legal iff every cell is 0, 1 or 2; the number of 1s equals
@ the number of 2s or exceeds it by exactly one; and not both players win. A player wins with a
@ contiguous run of 3, 4, 5 or 6 of its marks horizontally, vertically, on a main diagonal or on
@ an anti-diagonal (a run of 3 or more contains a run of exactly 3, so runs of 3 are searched).
@
@ SimpleRISC has no multiplier in the course variant - every row/column index computation goes
@ through the software subroutine `multiply`. The program needs no mul/div/mod instruction.
@
@ Run it (an autograder's view - poke the board, peek the result).
@   asmdbg run programs/simplerisc/tictactoe.asm --no-mul \
@       --poke 1000=1,1,1,0,0,0,2,2,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0 \
@       --peek 1144
@ Debug it.
@   asmdbg debug programs/simplerisc/tictactoe.asm --no-mul --poke 1000=...
@   gdb-multiarch, then target remote (port 1234), break haswin, continue
@
@ Labels that matter.
@   .main    entry - counts the marks, checks the count rule, calls haswin for both players
@   .finish  the single store of the result (r11) to address 1144; the program ends right after it
@   haswin   r1 = player (1 or 2) -> r1 = 1 if that player has a run of 3 or more, else 0
@   getcell  r1 = row, r2 = column -> r1 = the cell's value, or -1 when (row, column) is off the board
@   multiply r1 = r1 * r2 (low 32 bits, shift-and-add)
@ Calling convention - arguments in r1 and r2, the result in r1; every subroutine preserves all
@ other registers on the stack (sp = r14, growing down), and a subroutine that calls another
@ saves ra = r15 first. Registers of .main - r5/r6 the counts of 1s/2s, r7/r8 row/column,
@ r11 the result, r12/r13 whether player 1/2 wins.

@ ---------------------------------------------------------------------------------------------
@ multiply - r1 = r1 * r2, low 32 bits (two's complement, so negative factors work too).
@ Loops once per significant bit of r2 - pass the small factor in r2.
multiply:
	sub sp, sp, 12
	st r2, 0[sp]
	st r3, 4[sp]
	st r4, 8[sp]
	mov r3, 0               @ r3 = product so far
.mul_loop:
	cmp r2, 0
	beq .mul_done           @ no bits of the multiplier left
	and r4, r2, 1
	cmp r4, 0
	beq .mul_skip           @ low bit clear - nothing to add
	add r3, r3, r1
.mul_skip:
	lsl r1, r1, 1           @ multiplicand * 2
	lsr r2, r2, 1           @ next bit of the multiplier (logical - ends at 0)
	b .mul_loop
.mul_done:
	mov r1, r3
	ld r2, 0[sp]
	ld r3, 4[sp]
	ld r4, 8[sp]
	add sp, sp, 12
	ret

@ ---------------------------------------------------------------------------------------------
@ getcell - r1 = row, r2 = column -> r1 = board[row][col], or -1 when off the board.
@ Address = 1000 + 4 * (6 * row + col), the row offset computed by multiply.
getcell:
	sub sp, sp, 12
	st r2, 0[sp]
	st r3, 4[sp]
	st ra, 8[sp]
	mov r3, 0
	cmp r3, r1
	bgt .gc_off             @ row < 0
	cmp r1, 5
	bgt .gc_off             @ row > 5
	cmp r3, r2
	bgt .gc_off             @ col < 0
	cmp r2, 5
	bgt .gc_off             @ col > 5
	mov r3, r2              @ r3 = col
	mov r2, 6
	call multiply           @ r1 = 6 * row
	add r1, r1, r3          @ r1 = 6 * row + col
	lsl r1, r1, 2           @ words are 4 bytes
	ld r1, 1000[r1]
	b .gc_ret
.gc_off:
	mov r1, -1
.gc_ret:
	ld r2, 0[sp]
	ld r3, 4[sp]
	ld ra, 8[sp]
	add sp, sp, 12
	ret

@ ---------------------------------------------------------------------------------------------
@ haswin - r1 = player -> r1 = 1 if the player has 3 (or more) marks in a row, else 0.
@ For every cell holding the player's mark and every direction (dr, dc) in
@ (0,1) horizontal, (1,0) vertical, (1,1) main diagonal, (1,-1) anti-diagonal, look at the cells
@ (row + k*dr, col + k*dc) for k = 1, 2 - all three the player's -> a win. Every run of 3-6 has a
@ first cell in that direction, so this finds every run.
@ Registers - r3 row, r4 col, r5 dr, r6 dc, r7 k, r8 row + k*dr, r9 direction, r10 player.
haswin:
	sub sp, sp, 40
	st r2, 0[sp]
	st r3, 4[sp]
	st r4, 8[sp]
	st r5, 12[sp]
	st r6, 16[sp]
	st r7, 20[sp]
	st r8, 24[sp]
	st r9, 28[sp]
	st r10, 32[sp]
	st ra, 36[sp]
	mov r10, r1             @ r10 = player
	mov r3, 0               @ row = 0
.hw_row:
	mov r4, 0               @ col = 0
.hw_col:
	mov r1, r3
	mov r2, r4
	call getcell
	cmp r1, r10
	beq .hw_dirs            @ the player's mark - try the four directions from here
	b .hw_next
.hw_dirs:
	mov r9, 0               @ direction 0..3
.hw_dir:
	mov r5, 1               @ direction 2 - main diagonal (1, 1)
	mov r6, 1
	cmp r9, 0
	beq .hw_d0
	cmp r9, 1
	beq .hw_d1
	cmp r9, 3
	beq .hw_d3
	b .hw_walk
.hw_d0:
	mov r5, 0               @ direction 0 - horizontal (0, 1)
	b .hw_walk
.hw_d1:
	mov r6, 0               @ direction 1 - vertical (1, 0)
	b .hw_walk
.hw_d3:
	mov r6, -1              @ direction 3 - anti-diagonal (1, -1)
.hw_walk:
	mov r7, 1               @ k = 1
.hw_step:
	mov r1, r5
	mov r2, r7
	call multiply           @ r1 = k * dr
	add r8, r3, r1          @ r8 = row + k * dr
	mov r1, r6
	mov r2, r7
	call multiply           @ r1 = k * dc
	add r2, r4, r1          @ r2 = col + k * dc
	mov r1, r8
	call getcell
	cmp r1, r10
	beq .hw_more
	b .hw_nextdir           @ run broken (other mark, empty or off the board)
.hw_more:
	add r7, r7, 1
	cmp r7, 3
	beq .hw_found           @ k = 0, 1, 2 all the player's - a run of 3
	b .hw_step
.hw_nextdir:
	add r9, r9, 1
	cmp r9, 4
	beq .hw_next
	b .hw_dir
.hw_next:
	add r4, r4, 1
	cmp r4, 6
	beq .hw_rowdone
	b .hw_col
.hw_rowdone:
	add r3, r3, 1
	cmp r3, 6
	beq .hw_none
	b .hw_row
.hw_none:
	mov r1, 0
	b .hw_ret
.hw_found:
	mov r1, 1
.hw_ret:
	ld r2, 0[sp]
	ld r3, 4[sp]
	ld r4, 8[sp]
	ld r5, 12[sp]
	ld r6, 16[sp]
	ld r7, 20[sp]
	ld r8, 24[sp]
	ld r9, 28[sp]
	ld r10, 32[sp]
	ld ra, 36[sp]
	add sp, sp, 40
	ret

@ ---------------------------------------------------------------------------------------------
@ .main comes last - SimpleRISC has no halt, a program ends when it runs past its last
@ instruction, which is the store at .finish.
.main:
	mov r11, -1             @ result - illegal until proven otherwise
	mov r5, 0               @ number of 1s
	mov r6, 0               @ number of 2s
	mov r7, 0               @ row
.count_row:
	mov r8, 0               @ col
.count_col:
	mov r1, r7
	mov r2, r8
	call getcell
	cmp r1, 0
	beq .count_next
	cmp r1, 1
	beq .count_p1
	cmp r1, 2
	beq .count_p2
	b .finish               @ rule 1 - a value other than 0, 1, 2 -> illegal
.count_p1:
	add r5, r5, 1
	b .count_next
.count_p2:
	add r6, r6, 1
.count_next:
	add r8, r8, 1
	cmp r8, 6
	beq .count_rowdone
	b .count_col
.count_rowdone:
	add r7, r7, 1
	cmp r7, 6
	beq .count_done
	b .count_row
.count_done:
	sub r9, r5, r6          @ rules 2 and 3 - ones - twos must be 0 or 1
	cmp r9, 0
	beq .counts_ok
	cmp r9, 1
	beq .counts_ok
	b .finish
.counts_ok:
	mov r1, 1
	call haswin
	mov r12, r1             @ r12 = player 1 wins
	mov r1, 2
	call haswin
	mov r13, r1             @ r13 = player 2 wins
	cmp r12, 1
	beq .p1_wins
	mov r11, 0              @ player 1 does not win - a draw ...
	cmp r13, 1
	beq .p2_wins
	b .finish
.p2_wins:
	mov r11, 2              @ ... or player 2 wins
	b .finish
.p1_wins:
	mov r11, 1
	cmp r13, 1
	beq .both_win
	b .finish
.both_win:
	mov r11, -1             @ rule 4 - both players win -> illegal
.finish:
	mov r10, 0
	st r11, 1144[r10]       @ the one write of the result
