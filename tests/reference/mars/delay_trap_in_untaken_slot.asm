# A trap after an untaken branch (nothing pending), with a handler: the handler runs, EPC is
# the trap's address.
.text
main:
	li $t0, 3
	li $a0, 0
	bne $zero, $zero, first
	teq $t0, $t0
	addi $a0, $a0, 1
first:
	addi $a0, $a0, 4
	li $v0, 1
	syscall
	li $v0, 11
	li $a0, 32
	syscall
	li $v0, 1
	mfc0 $a0, $14
	syscall
	li $v0, 10
	syscall
.ktext 0x80000180
	addi $a0, $a0, 100
	mfc0 $k0, $14
	addiu $k0, $k0, 4
	mtc0 $k0, $14
	eret
