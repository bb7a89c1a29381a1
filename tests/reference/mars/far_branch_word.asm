# The far branch's instruction word holds the low 16 bits of its offset (40,003 = 0x9c43),
# as MARS's memory dump of the text segment shows (after the run, on stderr with `me`).
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
	nops10000
	nops10000
	nops10000
	nops10000
far:	li $v0, 1
	move $a0, $t0
	syscall
