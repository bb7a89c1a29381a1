	.ORIG x3000
L	BR L		; = x0FFF
	BRn L		; = x09FE
	BRz L		; = x05FD
	BRp L		; = x03FC
	BRnz L		; = x0DFB
	BRzp L		; = x07FA
	BRnp L		; = x0BF9
	BRnzp L		; = x0FF8
	BRpn L		; = x0BF7
	BRpzn L		; = x0FF6
	brZN L		; = x0DF5
	BR NEXT		; = x0E00
NEXT	BRz #255	; = x04FF
	BRp #-256	; = x0300
	.END
