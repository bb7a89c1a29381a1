; options: strict
	.END
; file error: no .ORIG directive found
