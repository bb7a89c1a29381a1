	.ORIG x3000
	ADD R8, R1, R2	; error@2+3: invalid usage of 'ADD' instruction (expected ADD reg, reg, reg or ADD reg, reg, imm5; found 'R8, R1, R2')
	.END
