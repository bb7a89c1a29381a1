	HALT
	.END
; file error: could not find valid .orig
