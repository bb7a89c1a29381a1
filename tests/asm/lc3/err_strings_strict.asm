; options: strict
	.ORIG x3000
	.STRINGZ bare	; error: illegal operands for .STRINGZ
	.STRINGZ	; error: illegal operands for .STRINGZ
	.END
