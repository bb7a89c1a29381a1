	.ORIG x3000
	HALT
; file error: no .end at end of file
