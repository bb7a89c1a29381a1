; options: strict
	.ORIG x3000
L	BRpn L		; error@3+4: expected an instruction or directive after the label 'L', found 'BRpn'
	BRz #512	; error: constant outside of allowed range
	BRz #511	; (lc3as wraps: allowed)
	BR R1		; error: illegal operands for BR (expected BR label; found 'R1')
	.END
