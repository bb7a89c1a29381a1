; options: strict
LBL			; error: label appears before .ORIG
	.ORIG x3000
	.ORIG x3100		; warning: multiple .ORIG directives found
	ADD R1, R1, #32		; error: constant outside of allowed range
	JMP LBL			; error: illegal operands for JMP (expected JMP reg; found 'LBL')
	ADD R1,,R1,R1		; error: illegal operands for ADD (expected ADD reg, reg, reg or ADD reg, reg, imm5; found 'R1,,R1,R1')
	ADD ,R1,R1,R1		; error: illegal operands for ADD (expected ADD reg, reg, reg or ADD reg, reg, imm5; found 'R1,R1,R1')
	LD R0 HERE		; error: illegal operands for LD (expected LD reg, label; found 'R0 HERE')
	LD R0, 1X		; error: illegal operands for LD (expected LD reg, label; found 'R0, 1X')
	TRAP HERE		; error: illegal operands for TRAP (expected TRAP trapvect8; found 'HERE')
	.FILL R1		; error: illegal operands for .FILL (expected .FILL number or label; found 'R1')
	@@@			; error@2+3: contains unrecognizable characters
	.FOO			; error: contains unrecognizable characters
HERE	LD R0, NOPE		; error@13+4: unknown label "NOPE"
	HALT extra		; error: illegal operands for HALT (expected HALT; found 'extra')
	PUTC			; (a label in lc3as)
	NOP			; (a label in lc3as)
	.END
