; options: strict
	.ORIG x3000
	.STRINGZ bare	; error: illegal operands for .STRINGZ (expected .STRINGZ "string"; found 'bare')
	.STRINGZ	; error: illegal operands for .STRINGZ (expected .STRINGZ "string"; found no operands)
	.END
