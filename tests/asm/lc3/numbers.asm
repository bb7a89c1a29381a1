	.ORIG x3000
	.FILL #10	; = x000A
	.FILL 10	; = x000A
	.FILL -10	; = xFFF6
	.FILL #-10	; = xFFF6
	.FILL x1F	; = x001F
	.FILL X1f	; = x001F
	.FILL x-1	; = xFFFF
	.FILL x-8000	; = x8000
	.FILL b101	; = x0005
	.FILL B-101	; = xFFFB
	.FILL #65535	; = xFFFF
	.FILL #-32768	; = x8000
	ADD R0, R0, x-10	; = x1030
	ADD R0, R0, b1111	; = x102F
	AND R0, R0, #-1	; = x503F
	.END
