# An address error in a delay slot, no exception handler: MARS's runtime error, once.
.text
main:
	li $t0, 3
	beq $zero, $zero, done
	lw $t1, 1($zero)
	li $v0, 1
	li $a0, 7
	syscall
done:
	li $v0, 1
	li $a0, 9
	syscall
