# Far branches made by pseudo-instructions (b, blt, bge expand to bgez, slt + bne, slt + beq)
# and a bgezal call over 40,000 instructions; the call's return address is the next word.
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
main:	li $t0, 1
	li $t1, 2
	b first
back:	li $v0, 1
	li $a0, 3
	syscall
	bge $t1, $t0, third
	li $v0, 10
	syscall
sub:	li $v0, 1
	li $a0, 4
	syscall
	jr $ra
	nops10000
	nops10000
	nops10000
	nops10000
first:	li $v0, 1
	li $a0, 1
	syscall
	blt $t0, $t1, second
	li $v0, 10
	syscall
second:	li $v0, 1
	li $a0, 2
	syscall
	j back
third:	bgezal $zero, sub
	li $v0, 1
	li $a0, 5
	syscall
