	.ORIG x3000
LOOP	BRnn LOOP	; error@6+4: unknown instruction 'BRnn' (did you mean 'BRN'?)
	BRz #256	; error@6+4: cannot encode as 9-bit 2's complement number
	BRp #-257	; error@6+5: cannot encode as 9-bit 2's complement number
	BRz		; error@2+3: invalid usage of 'BRz' instruction (expected BR label; found no operands)
	BR R1		; error: invalid usage of 'BR' instruction (expected BR label; found 'R1')
	.END
