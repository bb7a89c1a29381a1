; options: strict
	.ORIG x3000
	.FILL x-1
	ADD R1,R1,x-10
	ADD R1,R1,#x5	; error: illegal operands for ADD
	.END
