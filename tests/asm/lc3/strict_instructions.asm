; mode: strict
	.ORIG x3000
TOP	ADD R0, R1, R2		; = x1042
	ADD R7, R6, #-16	; = x1FB0
	add r3, r3, #15		; = x16EF
	AND R4, R5, R6		; = x5946
	AND R1, R1, #0		; = x5260
	NOT R2, R3		; = x94FF
	LD R0, DATA		; = x2013
	LDI R1, DATA		; = xA212
	LDR R2, R3, #-32	; = x64E0
	LDR R2, R3, #31		; = x64DF
	LEA R4, TOP		; = xE9F5
	ST R5, DATA		; = x3A0E
	STI R6, DATA		; = xBC0D
	STR R7, R0, #-1		; = x7E3F
	JMP R5			; = xC140
	RET			; = xC1C0
	JSR TOP			; = x4FEF
	JSRR R6			; = x4180
	RTI			; = x8000
	TRAP xFF		; = xF0FF
	TRAP #0			; = xF000
	LD R0, #-1		; = x21FF
	BR #0			; = x0E00
	JSR #1023		; = x4BFF
	.FILL x0000		; = x0000
	.FILL x01E6		; = x01E6
DATA	.FILL x1234		; = x1234
	.FILL TOP		; = x3000
	.FILL DATA		; = x301A
	.END
