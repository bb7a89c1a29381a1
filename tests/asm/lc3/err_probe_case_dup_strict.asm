; options: strict
	.ORIG x3000
A	.FILL 1
a	.FILL 2		; error@1+1: label a has already appeared
	LD R0, a
	LD R0, A
	.END
