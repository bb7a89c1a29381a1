; options: strict
	.ORIG x3000
TOP	ADD R0, R1, R2		; = 0x1042
	ADD R7, R6, #-16	; = 0x1FB0
	add r3, r3, #15		; = 0x16EF
	AND R4, R5, R6		; = 0x5946
	AND R1, R1, #0		; = 0x5260
	NOT R2, R3		; = 0x94FF
	LD R0, DATA		; = 0x2013
	LDI R1, DATA		; = 0xA212
	LDR R2, R3, #-32	; = 0x64E0
	LDR R2, R3, #31		; = 0x64DF
	LEA R4, TOP		; = 0xE9F5
	ST R5, DATA		; = 0x3A0E
	STI R6, DATA		; = 0xBC0D
	STR R7, R0, #-1		; = 0x7E3F
	JMP R5			; = 0xC140
	RET			; = 0xC1C0
	JSR TOP			; = 0x4FEF
	JSRR R6			; = 0x4180
	RTI			; = 0x8000
	TRAP xFF		; = 0xF0FF
	TRAP #0			; = 0xF000
	LD R0, #-1		; = 0x21FF
	BR #0			; = 0x0E00
	JSR #1023		; = 0x4BFF
	.FILL x0000		; = 0x0000
	.FILL x01E6		; = 0x01E6
DATA	.FILL x1234		; = 0x1234
	.FILL TOP		; = 0x3000
	.FILL DATA		; = 0x301A
	.END
