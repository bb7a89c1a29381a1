; options: strict
	.ORIG x3000
	HALT
; file error: no .END directive found
