	.ORIG x3000
	ADD R1, R1, #16		; error@14+3: cannot encode as 5-bit 2's complement number
	ADD R1, R1, #-17	; error@14+4: cannot encode as 5-bit 2's complement number
	LDR R1, R2, #32		; error@14+3: cannot encode as 6-bit 2's complement number
	TRAP x100		; error@7+4: cannot encode as 8-bit unsigned number
	.FILL x10000		; error@8+6: cannot encode as 16-bit unsigned number
	.FILL #65535
	.FILL #-32769		; error@8+7: cannot encode as 16-bit 2's complement number
	.END
