# Data directives: sizes, automatic alignment, repetition, strings, floats, .align 0.
	.data
b1:	.byte 1, 2, 0xff		# bytes: 01 02 ff # warning@17+4: "0xff" is out-of-range for a signed value
h1:	.half 0x1234			# at: 0x10010004
h2:	.half -2			# bytes: fe ff
w1:	.word 0xdeadbeef		# at: 0x10010008
w2:	.word -1			# bytes: ff ff ff ff
rep:	.word 5:3			# bytes: 05 00 00 00 05 00 00 00 05 00 00 00
s1:	.ascii "ab\n"			# bytes: 61 62 0a
s2:	.asciiz "x\ty\"\\z"		# bytes: 78 09 79 22 5c 7a 00
f1:	.float 1.5			# bytes: 00 00 c0 3f
f1b:	.float 2			# at: 0x1001002c
d1:	.double 2.0			# at: 0x10010030
d2:	.double -0.5			# bytes: 00 00 00 00 00 00 e0 bf
sp1:	.space 3			# at: 0x10010040
	.align 0
wx:	.word 7				# at: 0x10010043
wl:	.word w1			# bytes: 08 00 01 10
ch:	.byte 'z', '\n'			# bytes: 7a 0a
lat:	.ascii "é"			# bytes: e9
big:	.byte 300			# warning: out-of-range
	.data 0x10020000
far:	.word 1, 2			# at: 0x10020000
	.kdata
kd:	.word 3				# at: 0x90000000
	.text
	nop				# at: 0x00400000
