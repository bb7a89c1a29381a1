; options: strict
	.ORIG x3000
	BR FAR		; error@5+3: label "FAR" at distance 300 (allowed range is -256 to 255)
	.BLKW 300
FAR	HALT
	.END
