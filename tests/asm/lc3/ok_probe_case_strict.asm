; options: strict
	.orig x3000
	add r1, r1, #1	; = 0x1261
	Ld R2, val	; = 0x2402
	brNZP done	; = 0x0E00
done	halt		; = 0xF025
val	.fill x5	; = 0x0005
	.end
; obj: 3000126124020e00f0250005
