# A loop whose bne goes back over 40,000 instructions, three times round: prints 321.
	.macro nops10
	nop
	nop
	nop
	nop
	nop
	nop
	nop
	nop
	nop
	nop
	.end_macro
	.macro nops100
	nops10
	nops10
	nops10
	nops10
	nops10
	nops10
	nops10
	nops10
	nops10
	nops10
	.end_macro
	.macro nops1000
	nops100
	nops100
	nops100
	nops100
	nops100
	nops100
	nops100
	nops100
	nops100
	nops100
	.end_macro
	.macro nops10000
	nops1000
	nops1000
	nops1000
	nops1000
	nops1000
	nops1000
	nops1000
	nops1000
	nops1000
	nops1000
	.end_macro
	.text
main:	li $t0, 3
top:	li $v0, 1
	move $a0, $t0
	syscall
	addi $t0, $t0, -1
	j body
	nops10000
	nops10000
	nops10000
	nops10000
body:	bne $t0, $zero, top
	li $v0, 10
	syscall
