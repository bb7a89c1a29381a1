	.ORIG x3000
	HALT
	.END
	ADD R1,R1,#1	; error@1+13: cannot determine address for statement
