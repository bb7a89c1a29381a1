	.ORIG x3000
START:	LEA R0, MSG	; = 0xE002
	PUTS		; = 0xF022
	HALT		; = 0xF025
MSG
	.STRINGZ "hi"	; = 0x68 0x69 0x00
BUF	.BLKW 3		; = 0x0000*3
BUF2:	.BLKW x2	; = 0x0000*2
PTR	.FILL BUF	; = 0x3006
	.FILL start	; = 0x3000
	.END
	.ORIG x4000
FAR	.FILL PTR	; = 0x300B
	.FILL FAR	; = 0x4000
	.FILL Far2	; = 0x4004
	.END
	.orig x4003
	.fill 1		; = 0x0001
far2	.blkw 1		; = 0x0000
	.end
