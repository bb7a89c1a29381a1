	.ORIG x3000
E	.STRINGZ ""		; = x0000
S	.STRINGZ "a;b"		; = x61 x3B x62 x00
T	.STRINGZ "tab\there"	; = x74 x61 x62 x09 x68 x65 x72 x65 x00
Q	.STRINGZ "\"\\"		; = x22 x5C x00
U	.STRINGZ "\q"		; = x5C x71 x00
R	.STRINGZ "\r"		; = x0D x00
W	.STRINGZ bare		; = x62 x61 x72 x65 x00
	.END
