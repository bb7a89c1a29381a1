; options: strict
	.ORIG x3000
	ADD R1 R1 #1	; error: illegal operands for ADD
	.END
