; mode: strict
	.orig x3000
	add r1, r1, #1	; = x1261
	Ld R2, val	; = x2402
	brNZP done	; = x0E00
done	halt		; = xF025
val	.fill x5	; = x0005
	.end
; obj: 3000126124020e00f0250005
