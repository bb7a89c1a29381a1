; options: strict
	.ORIG x3000
	ADD R8, R1, R2	; error: illegal operands for ADD
	.END
