# A taken branch in a taken branch's delay slot: MARS keeps the first target and postpones it
# by one instruction (DelayedBranch.register): the instruction after the slot runs, then the
# first branch lands. Prints 5.
.text
main:
	li $a0, 0
	beq $zero, $zero, first
	beq $zero, $zero, second
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
	li $v0, 10
	syscall
