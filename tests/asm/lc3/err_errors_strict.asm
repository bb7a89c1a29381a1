; options: strict
LBL			; error: label appears before .ORIG
	.ORIG x3000
	.ORIG x3100		; warning: multiple .ORIG directives found
	ADD R1, R1, #32		; error: constant outside of allowed range
	JMP LBL			; error: illegal operands for JMP
	ADD R1,,R1,R1		; error: illegal operands for ADD
	ADD ,R1,R1,R1		; error: illegal operands for ADD
	LD R0 HERE		; error: illegal operands for LD
	LD R0, 1X		; error: illegal operands for LD
	TRAP HERE		; error: illegal operands for TRAP
	.FILL R1		; error: illegal operands for .FILL
	@@@			; error@2+3: contains unrecognizable characters
	.FOO			; error: contains unrecognizable characters
HERE	LD R0, NOPE		; error@13+4: unknown label "NOPE"
	HALT extra		; error: illegal operands for HALT
	PUTC			; (a label in lc3as)
	NOP			; (a label in lc3as)
	.END
