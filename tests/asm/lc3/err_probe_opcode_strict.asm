; options: strict
	.ORIG x3000
	MUL R1, R1, R2	; error@2+3: unknown instruction 'MUL'
	.END
