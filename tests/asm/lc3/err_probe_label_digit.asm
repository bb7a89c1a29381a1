	.ORIG x3000
1ABC	.FILL 1		; error@1+4: label cannot begin with number
	.END
