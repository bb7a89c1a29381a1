	.ORIG x3000
S1	.STRINGZ "a\"b\n\t\\c"
S2	.STRINGZ "x", "y"	; error@19+1: extraneous operand to .stringz
	.BLKW 2
	.BLKW #3 xABCD	; error@11+5: extraneous operand to .blkw
	.END
