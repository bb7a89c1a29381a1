	.ORIG x3000
	ADD R1, R1, #16	; error@14+3: cannot encode as 5-bit 2's complement number
	.END
