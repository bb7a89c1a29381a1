; options: strict
	.ORIG x3000
ADD	.FILL 1		; error: illegal operands for ADD (expected ADD reg, reg, reg or ADD reg, reg, imm5; found '.FILL 1')
R1 .FILL 2
	.END
