; options: strict
	.ORIG x3000
	ADD R1, R1, #16	; = 0x1270
	.END
; obj: 30001270
