	.ORIG x3000
X	.FILL 1
X	.FILL 2		; error@1+1: attempting to redefine label 'X' from 0x3000 to 0x3001
	.END
