# A jal in jal's delay slot: the second call's link is written but its target dropped.
.text
main:
	li $a0, 0
	jal sub
	jal other
	addi $a0, $a0, 1
	li $v0, 1
	syscall
	li $v0, 11
	li $a0, 32
	syscall
	li $v0, 34
	move $a0, $ra
	syscall
	li $v0, 10
	syscall
sub:
	addi $a0, $a0, 16
	jr $ra
	nop
other:
	li $a0, 77
	li $v0, 1
	syscall
	li $v0, 10
	syscall
