# A j in jal's delay slot: the j's target is dropped, the instruction after the slot runs,
# then the call lands; the return address is the word after the slot. Prints 18.
.text
main:
	li $a0, 0
	jal sub
	j second
	addi $a0, $a0, 1
	li $v0, 1
	syscall
	li $v0, 10
	syscall
sub:
	addi $a0, $a0, 16
	jr $ra
	nop
second:
	addi $a0, $a0, 8
	li $v0, 1
	syscall
	li $v0, 10
	syscall
