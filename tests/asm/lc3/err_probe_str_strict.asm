; options: strict
	.ORIG x3000
S1	.STRINGZ "a\"b\n\t\\c"
S2	.STRINGZ "x", "y"	; error: unterminated string
	.BLKW 2
	.BLKW #3 xABCD	; error: illegal operands for .BLKW (expected .BLKW count; found '#3 xABCD')
	.END
