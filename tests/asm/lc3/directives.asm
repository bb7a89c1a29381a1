	.ORIG x3000
START:	LEA R0, MSG	; = xE002
	PUTS		; = xF022
	HALT		; = xF025
MSG
	.STRINGZ "hi"	; = x68 x69 x00
BUF	.BLKW 3		; = x0000*3
BUF2:	.BLKW x2	; = x0000*2
PTR	.FILL BUF	; = x3006
	.FILL start	; = x3000
	.END
	.ORIG x4000
FAR	.FILL PTR	; = x300B
	.FILL FAR	; = x4000
	.FILL Far2	; = x4004
	.END
	.orig x4003
	.fill 1		; = x0001
far2	.blkw 1		; = x0000
	.end
