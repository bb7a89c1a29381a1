; options: strict
	.ORIG x3000
	BR NOWHERE	; error@5+7: unknown label "NOWHERE"
	.END
