; options: strict
	.ORIG x3000
	ADD R1 R1 #1	; error: illegal operands for ADD (expected ADD reg, reg, reg or ADD reg, reg, imm5; found 'R1 R1 #1')
	.END
