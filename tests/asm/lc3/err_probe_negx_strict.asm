; options: strict
	.ORIG x3000
	.FILL x-1
	ADD R1,R1,x-10
	ADD R1,R1,#x5	; error: illegal operands for ADD (expected ADD reg, reg, reg or ADD reg, reg, imm5; found 'R1,R1,#x5')
	.END
