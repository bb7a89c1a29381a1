# A word one edit from an instruction where an operator goes: MARS's error, and what it looks
# like (as a warning beside it).
	.text
main:	li $v0, 10
	sycall				# error@2+6: "sycall" is not a recognized operator # warning@2+6: `sycall` looks like the instruction syscall
	frob				# error: "frob" is not a recognized operator
