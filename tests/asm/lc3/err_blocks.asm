	ADD R0, R0, #1		; error@1+15: cannot determine address for statement
	.END			; error@1+5: cannot determine address for statement
	.ORIG x3000
	HALT
	.ORIG x3100		; error@2+5: new .orig found, but previous region did not have .end
	HALT
	.END
	.END
	NOT R0, R0		; error@1+11: cannot determine address for statement
	.ORIG xFDFF
	.FILL 1
	.FILL 2			; error: cannot write code into memory-mapped I/O region
	.FILL 3
	.END
	.ORIG #-1		; error: cannot encode as 16-bit unsigned number
	.END
