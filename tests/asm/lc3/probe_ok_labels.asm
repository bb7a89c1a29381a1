	.ORIG x3000
loop	ADD R1, R1, #1	; = x1261
LOOP2:	BRp loop	; = x03FE
	BR LOOP2	; = x0FFE
	BRnzp Loop	; = x0FFC
Data .FILL 5		; = x0005
	.END
; obj: 3000126103fe0ffe0ffc0005
