; mode: strict
	.ORIG x3000
	GETC		; = xF020
	OUT		; = xF021
	PUTC		; lc3as takes PUTC for a label
	PUTS		; = xF022
	IN		; = xF023
	PUTSP		; = xF024
	HALT		; = xF025
	TRAP x25	; = xF025
	RTI		; = x8000
	JSRR R3		; = x40C0
	JMP R2		; = xC080
	RET		; = xC1C0
	.END
; obj: 3000f020f021f022f023f024f025f025800040c0c080c1c0
