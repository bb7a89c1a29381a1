; options: strict
	.ORIG x3000
	ADD R1,R1,R1	; = 0x1241
	ADD R1, R1, #31	; = 0x127F
	LDR R1,R2,#63	; = 0x62BF
	TRAP #-128	; = 0xF080
	LD R0, #511	; = 0x21FF
	.FILL #-1	; = 0xFFFF
	.BLKW #0
LBL:	RET		; = 0xC1C0
	.FILL LBL	; = 0x3006
ADD:	.FILL ADD	; = 0x3008 ; lc3as lets a label take an opcode's name with a colon
	.END
