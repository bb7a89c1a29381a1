	.ORIG x3000
	BR NOWHERE	; error@5+7: could not find label 'NOWHERE'
	.END
