; options: strict
	.ORIG x3000
L	BRpn L		; error: illegal operands for missing opcode
	BRz #512	; error: constant outside of allowed range
	BRz #511	; (lc3as wraps: allowed)
	BR R1		; error: illegal operands for BR
	.END
