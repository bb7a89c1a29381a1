	.ORIG x3000
	.FILL 'A'	; error@8+3: could not find label
	.END
