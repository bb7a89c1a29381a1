	.ORIG x3000
	MUL R1, R1, R2	; error@6+2: illegal operand to a label ; error@10+2: illegal operand to a label ; error@14+2: illegal operand to a label
	.END
