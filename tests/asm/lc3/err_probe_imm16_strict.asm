; options: strict
	.ORIG x3000
	ADD R1, R1, #16
	ADD R1, R1, #-17	; error: constant outside of allowed range
	LDR R1, R2, #32
	TRAP x100		; error: constant outside of allowed range
	.FILL x10000		; error: constant outside of allowed range
	.FILL #65535
	.FILL #-32769		; error: constant outside of allowed range
	.END
