# A trap right after a branch that sat in a branch's delay slot, with a handler: the first
# branch's target wins over the handler.
.text
main:
	li $t0, 3
	li $a0, 0
	beq $zero, $zero, first
	beq $zero, $zero, second
	teq $t0, $t0
	addi $a0, $a0, 1
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
	li $v0, 10
	syscall
.ktext 0x80000180
	addi $a0, $a0, 100
	mfc0 $k0, $14
	addiu $k0, $k0, 4
	mtc0 $k0, $14
	eret
