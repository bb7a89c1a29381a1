# An instruction written in the data segment: MARS drops it without a word on stderr
# (asmdbg says so only under --strict).
	.data
x:	.word 5
	add $t0, $t0, $t0
	.text
main:	li $v0, 1
	lw $a0, x
	syscall
