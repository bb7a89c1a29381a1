# Included by main.asm: its `.eqv`s and macros are main.asm's alone.
	.eqv	PRINT_INT 1
	.eqv	PRINT_STR 4
	.macro	print_str(%label)
	la	$a0, %label
	li	$v0, PRINT_STR
	syscall
	.end_macro
	.macro	print_int(%reg)
	move	$a0, %reg
	li	$v0, PRINT_INT
	syscall
	.end_macro
	.macro	quit
	li	$v0, 10
	syscall
	.end_macro
