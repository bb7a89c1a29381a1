	.ORIG x3000
	.BLKW #3 xABCD	; error@11+5: extraneous operand to .blkw
	.END
