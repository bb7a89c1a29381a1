; options: strict
	.ORIG x3000
	GETC		; = 0xF020
	OUT		; = 0xF021
	PUTC		; lc3as takes PUTC for a label
	PUTS		; = 0xF022
	IN		; = 0xF023
	PUTSP		; = 0xF024
	HALT		; = 0xF025
	TRAP x25	; = 0xF025
	RTI		; = 0x8000
	JSRR R3		; = 0x40C0
	JMP R2		; = 0xC080
	RET		; = 0xC1C0
	.END
; obj: 3000f020f021f022f023f024f025f025800040c0c080c1c0
