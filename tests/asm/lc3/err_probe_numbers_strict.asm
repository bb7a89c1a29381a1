; options: strict
	.ORIG x3000
	ADD R1, R1, #-16
	ADD R1, R1, x0F
	ADD R1, R1, b1010	; error: illegal operands for ADD (expected ADD reg, reg, reg or ADD reg, reg, imm5; found 'R1, R1, b1010')
	AND R2, R2, #15
	.FILL xFFFF
	.FILL #-32768
	.FILL b1111000011110000	; error@8+17: unknown label "b1111000011110000"
	.FILL 10
	.FILL 0x1F	; error: illegal operands for .FILL (expected .FILL number or label; found '0x1F')
	HALT
	.END
