; options: strict
	HALT		; error: instruction appears before .ORIG
	.END
