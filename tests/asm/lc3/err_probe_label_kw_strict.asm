; options: strict
	.ORIG x3000
ADD	.FILL 1		; error: illegal operands for ADD
R1 .FILL 2
	.END
