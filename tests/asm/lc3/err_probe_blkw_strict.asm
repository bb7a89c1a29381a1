; options: strict
	.ORIG x3000
	.BLKW #3 xABCD	; error: illegal operands for .BLKW (expected .BLKW count; found '#3 xABCD')
	.END
