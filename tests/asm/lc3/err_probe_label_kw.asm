	.ORIG x3000
ADD	.FILL 1		; error@1+3: label cannot be an instruction
R1 .FILL 2		; error@1+2: label cannot be a register
	.END
