	.ORIG x3000
A	.FILL 1
a	.FILL 2		; error@1+1: attempting to redefine label 'a' from 0x3000 to 0x3001
	LD R0, a
	LD R0, A
	.END
