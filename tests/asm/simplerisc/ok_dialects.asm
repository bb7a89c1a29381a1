@ Dialects the course emulators accept; a mark after a line gives the word it encodes.
/* A block comment
   over several lines: add r9, r9, r9 is not code */
// a line comment in the C++ style
.main:
	mov r1, 100            @ = 0x4c400064
	MOV R2, 0X10           @ = 0x4c800010
	mov r3,r1              // = 0x48c04000
	add r4 , r1 ,  -5      @ = 0x0504fffb
	add r5, r1, 0x a25     @ = 0x05440a25
	add r6, r1, 0x    4		 d  4   @ = 0x058404d4
	addu r7, r0, 0xFFFF    @ = 0x05c1ffff
	movh r8, 0xffff        @ = 0x4e02ffff
	ld r1, 4[r2]           @ = 0x74480004
	ld r0, [sp]            @ = 0x74380000
	ld r9, 0x10[r1]        @ = 0x76440010
	st r1, -8 [ sp ]       @ = 0x7c78fff8
	st ra, 4[sp]           @ = 0x7ff80004
loop: sub r1, r1, 1        @ = 0x0c440001
	.loop2: cmp r1, 0      @ = 0x2c040000
	bgt loop               @ = 0x8ffffffe
first: second: nop         @ = 0x68000000
	b .loop2               @ = 0x97fffffd
	call second            @ = 0x9ffffffe
	add r1, /* inline */ r1, 1   @ = 0x04440001
	hlt                    @ = 0xb0000000
	halt                   @ = 0xb0000000
	ret                    @ = 0xa0000000
.end:
