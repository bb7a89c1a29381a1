# The same far branch with delay slots (MARS's `db`): the slot's instruction runs first.
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
main:	li $t0, 7
	beq $zero, $zero, far
	addi $t0, $t0, 1
	li $v0, 1
	li $a0, 111
	syscall
	nops10000
	nops10000
	nops10000
	nops10000
far:	li $v0, 1
	move $a0, $t0
	syscall
