; options: strict
	.ORIG x3000
	.FILL 'A'	; error: illegal operands for .FILL (expected .FILL number or label; found ''A'')
	.END
