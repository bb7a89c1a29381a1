; options: strict
	.ORIG x3000
	HALT		; = 0xF025
	.END
	.ORIG x4000	; warning: all text after .END ignored
	.FILL 7
	.END
; obj: 3000f025
