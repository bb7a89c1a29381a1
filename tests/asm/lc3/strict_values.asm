; mode: strict
	.ORIG x3000
	ADD R1,R1,R1	; = x1241
	ADD R1, R1, #31	; = x127F
	LDR R1,R2,#63	; = x62BF
	TRAP #-128	; = xF080
	LD R0, #511	; = x21FF
	.FILL #-1	; = xFFFF
	.BLKW #0
LBL:	RET		; = xC1C0
	.FILL LBL	; = x3006
ADD:	.FILL ADD	; = x3008 ; lc3as lets a label take an opcode's name with a colon
	.END
