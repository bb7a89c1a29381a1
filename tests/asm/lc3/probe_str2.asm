	.ORIG x3000
S1	.STRINGZ "a\"b\n\t\\c\e"	; = x61 x22 x62 x0A x09 x5C x63 x5C x65 x00
	.END
