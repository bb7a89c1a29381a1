# An untaken branch in a taken branch's delay slot: the first branch lands after the slot.
.text
main:
	li $a0, 0
	beq $zero, $zero, first
	bne $zero, $zero, second
	addi $a0, $a0, 1
	addi $a0, $a0, 2
first:
	addi $a0, $a0, 4
	li $v0, 1
	syscall
	li $v0, 10
	syscall
second:
	addi $a0, $a0, 8
	li $v0, 1
	syscall
