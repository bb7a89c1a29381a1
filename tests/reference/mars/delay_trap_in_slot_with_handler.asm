# A trap in a delay slot with an exception handler at 0x80000180: MARS sets Cause, EPC and
# Status, moves the PC to the handler and then lets the pending branch land on its target, so
# the handler does not run. Prints 9.
.text
main:
	li $t0, 3
	beq $zero, $zero, done
	teq $t0, $t0
	li $v0, 1
	li $a0, 7
	syscall
done:
	li $v0, 1
	li $a0, 9
	syscall
	li $v0, 10
	syscall
.ktext 0x80000180
	mfc0 $k0, $14
	li $v0, 1
	move $a0, $k0
	syscall
	li $v0, 11
	li $a0, 10
	syscall
	addiu $k0, $k0, 4
	mtc0 $k0, $14
	eret
