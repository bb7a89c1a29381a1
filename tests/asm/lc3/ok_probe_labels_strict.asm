; options: strict
	.ORIG x3000
loop	ADD R1, R1, #1	; = 0x1261
LOOP2:	BRp loop	; = 0x03FE
	BR LOOP2	; = 0x0FFE
	BRnzp Loop	; = 0x0FFC
Data .FILL 5		; = 0x0005
	.END
; obj: 3000126103fe0ffe0ffc0005
