	.ORIG x3000
L	BR L		; = 0x0FFF
	BRn L		; = 0x09FE
	BRz L		; = 0x05FD
	BRp L		; = 0x03FC
	BRnz L		; = 0x0DFB
	BRzp L		; = 0x07FA
	BRnp L		; = 0x0BF9
	BRnzp L		; = 0x0FF8
	BRpn L		; = 0x0BF7
	BRpzn L		; = 0x0FF6
	brZN L		; = 0x0DF5
	BR NEXT		; = 0x0E00
NEXT	BRz #255	; = 0x04FF
	BRp #-256	; = 0x0300
	.END
