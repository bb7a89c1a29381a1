; options: strict
	.ORIG x3000
	MUL R1, R1, R2	; error: illegal operands for missing opcode
	.END
