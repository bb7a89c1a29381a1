; options: strict
	.ORIG x3000
	HALT		; = 0xF025
	.END
	ADD R1,R1,#1	; warning: all text after .END ignored
; obj: 3000f025
