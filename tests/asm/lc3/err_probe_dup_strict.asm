; options: strict
	.ORIG x3000
X	.FILL 1
X	.FILL 2		; error: label X has already appeared
	.END
