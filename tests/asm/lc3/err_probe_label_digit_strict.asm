; options: strict
	.ORIG x3000
1ABC	.FILL 1		; error: contains unrecognizable characters
	.END
