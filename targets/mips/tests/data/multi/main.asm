# The main file of a two-file program (the other is lib/lib.asm): it calls lib.asm's
# global functions and reads its global data; its own `nl` and `loop` are local.
	.include "macros.asm"
	.data
title:	.asciiz "sum of "
sep:	.asciiz " numbers = "
nl:	.asciiz "\n"
	.text
	.globl	main
main:
	print_str(title)
	lw	$t0, count		# lib.asm's global word
	print_int($t0)
	print_str(sep)
	la	$a0, numbers		# lib.asm's global array
	lw	$a1, count
	jal	sum			# lib.asm's global function
	print_int($v0)
	print_str(nl)
	li	$t1, 3
loop:					# lib.asm has a local `loop` too
	print_int($t1)
	addi	$t1, $t1, -1
	bgtz	$t1, loop
	print_str(nl)
	jal	greet
	quit
