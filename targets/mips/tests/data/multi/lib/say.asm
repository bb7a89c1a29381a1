# Included by lib.asm. PRINT_STR is also an .eqv of main.asm's macros.asm, with another
# value: .eqv is per file.
	.eqv	PRINT_STR 0x4
	.macro	say(%label)
	la	$a0, %label
	li	$v0, PRINT_STR
	syscall
	.end_macro
