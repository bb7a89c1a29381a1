# .eqv, macros with %parameters and per-expansion labels, and .include.
	.eqv	SYS_PRINT_INT 1
	.eqv	COUNT 3
	.macro	print_int (%x)
	li	$v0, SYS_PRINT_INT
	add	$a0, $zero, %x
	syscall
	.end_macro
	.macro	loop_n (%n)
	li	$t0, %n
loop:	addi	$t0, $t0, -1
	bnez	$t0, loop
	.end_macro
	.text
main:	li	$t1, COUNT		# = 0x24090003
	print_int($t1)			# = 0x24020001 0x00092020 0x0000000c
	loop_n(2)			# = 0x24080002 0x2108ffff 0x1500fffe
	loop_n	5			# = 0x24080005 0x2108ffff 0x1500fffe
	.include "inc_exit.asm"
	li	$t2, COUNT		# = 0x240a0003
