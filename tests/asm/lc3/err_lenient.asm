	.ORIG x3000
	ADDD R1, R2, R3		; error@2+4: unknown instruction 'ADDD' (did you mean 'ADD'?)
	ADD R1, R2		; error@2+3: invalid usage of 'ADD' instruction (expected ADD reg, reg, reg or ADD reg, reg, imm5; found 'R1, R2')
	ADD R1, R2, LABEL	; error@2+3: invalid usage of 'ADD' instruction (expected ADD reg, reg, reg or ADD reg, reg, imm5; found 'R1, R2, LABEL')
	LDR R1, R2, LABEL	; error: invalid usage of 'LDR' instruction (expected LDR reg, reg, imm6; found 'R1, R2, LABEL')
	JMP #3			; error: invalid usage of 'JMP' instruction (expected JMP reg; found '#3')
	RET R7			; error: invalid usage of 'RET' instruction (expected RET; found 'R7')
	TRAP #-1		; error@7+3: cannot encode as 8-bit unsigned number
	JSR #1024		; error@6+5: cannot encode as 11-bit 2's complement number
	LD R0, #256		; error: cannot encode as 9-bit 2's complement number
	.FOO 3			; error@2+4: unknown directive '.FOO' (expected .ORIG, .FILL, .BLKW, .STRINGZ or .END)
	JRS R1			; error@2+3: unknown instruction 'JRS' (did you mean 'JSR'?)
HLAT				; a lone word is a label, as in lc3tools ; warning@1+4: label `HLAT` looks like the instruction HALT
DONE R1, #1		; error@6+2: expected an instruction or directive after the label 'DONE', found 'R1'
	.FILL			; error@2+5: .fill requires 1 more operand(s)
	.FILL R1		; error: operand should be numeric or a string, found register 'R1'
	.BLKW 0			; error: operand to .blkw must be > 0
	.BLKW LABEL		; error: operand should be numeric, found 'LABEL'
	.STRINGZ R2		; error: operand should be a string, found 'R2'
	.STRINGZ		; error: .stringz requires 1 more operand(s)
5	.FILL 1			; error@1+1: label cannot be a numeric value
	.ORIG			; error@2+5: new .orig found ; error: .orig requires 1 more operand(s)
	BR FAR			; error@5+3: cannot encode as 9-bit 2's complement number
	.BLKW 512
FAR	.END 3			; error@10+1: extraneous operand to .end
