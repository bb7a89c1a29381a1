# A branch over 40,000 instructions: its offset does not fit the instruction's 16 bits. MARS
# 4.5 assembles it without a word, keeps the offset's low 16 bits in the instruction word and
# runs it with the whole displacement, so this prints 7, not the 111 of the fall-through.
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
