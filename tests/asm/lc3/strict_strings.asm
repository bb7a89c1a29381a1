; mode: strict
	.ORIG x3000
S	.STRINGZ "a;b"		; = x61 x3B x62 x00
E	.STRINGZ "\e\a\q"	; = x1B x07 x71 x00
	.END
