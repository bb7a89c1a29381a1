; mode: strict
	.ORIG x3000
	ADD R1, R1, #16	; = x1270
	.END
; obj: 30001270
