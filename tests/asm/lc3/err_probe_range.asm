	.ORIG x3000
	BR FAR		; error@5+3: cannot encode as 9-bit 2's complement number
	.BLKW 300
FAR	HALT
	.END
