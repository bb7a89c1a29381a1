# A j in a j's delay slot: the first j lands after the instruction that follows the slot.
.text
main:
	li $a0, 1
	j done
	j other
	addi $a0, $a0, 1
done:
	li $v0, 1
	syscall
	li $v0, 10
	syscall
other:
	li $a0, 99
	li $v0, 1
	syscall
