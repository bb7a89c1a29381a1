; options: strict
	.ORIG x3000
	ADD R8, R1, R2	; error: illegal operands for ADD (expected ADD reg, reg, reg or ADD reg, reg, imm5; found 'R8, R1, R2')
	.END
