# Decimal literals from 2^31 to 2^32-1 (and beyond): MARS 4.5's Binary.stringToInt accumulates
# a sign-less decimal that Integer.decode rejects in a wrapping Java int, so each is the 32-bit
# pattern of its value mod 2^32 and then picks its pseudo-op template by that pattern, first fit
# (mars-pseudoops order). Expected words derived from those templates.
	.data
words:	.word	4294967295, 3000000000, 2147483648	# bytes: ff ff ff ff 00 5e d0 b2 00 00 00 80
wrap:	.word	4294967296, 4294967297		# bytes: 00 00 00 00 01 00 00 00
bytes:	.byte	4294967295			# bytes: ff
halves:	.half	4294967295, 4294934528		# bytes: ff ff 00 80
	.text
main:
	li	$t0, 4294967295		# = 0x2408ffff
	li	$t0, 4294934528		# = 0x24088000
	li	$t0, 3000000000		# = 0x3c01b2d0 0x34285e00
	li	$t0, 2147483648		# = 0x3c018000 0x34280000
	li	$t0, 4294901760		# = 0x3c01ffff 0x34280000
	li	$t0, 4294967296		# = 0x24080000
	li	$t0, 08			# = 0x24080008
	addiu	$t0, $zero, 4294967295	# = 0x2408ffff
	addiu	$t0, $zero, 3000000000	# = 0x3c01b2d0 0x34215e00 0x00014021
	addi	$t1, $t1, 2147483648	# = 0x3c018000 0x34210000 0x01214820
	andi	$t0, $t1, 4294967295	# = 0x3c01ffff 0x3421ffff 0x01214024
	ori	$t0, $t1, 4294901760	# = 0x3c01ffff 0x34210000 0x01214025
	xori	$t0, 2863311530		# = 0x3c01aaaa 0x3421aaaa 0x01014026
	addi	$t0, $t1, 4294934528	# = 0x21288000
	subi	$t0, $t1, 4294967295	# = 0x2001ffff 0x01214022
	sltiu	$t0, $t1, 4294967295	# = 0x2d28ffff
	seq	$t0, $t1, 2147483648	# = 0x3c018000 0x34210000 0x01214023 0x34010001 0x0101402b
	mul	$t0, $t1, 4294967295	# = 0x2001ffff 0x71214002
	lw	$t0, 4294967292($t1)	# = 0x8d28fffc
	lw	$t0, 2147483648($t1)	# = 0x3c018000 0x00290821 0x8c280000
	lw	$t0, 3000000000($t1)	# = 0x3c01b2d0 0x00290821 0x8c285e00
	sw	$t0, 4294934527		# = 0x3c01ffff 0xac287fff
	lb	$t0, 4294967295		# = 0x8008ffff
	lw	$t0, 4294967295		# = 0x8c08ffff
	beq	$t0, 4294967295, t1	# = 0x2001ffff 0x10280000
t1:	bne	$t0, 3000000000, t2	# = 0x3c01b2d0 0x34215e00 0x14280000
t2:	blt	$t0, 2147483648, t3	# = 0x3c018000 0x34210000 0x0101082a 0x14200000
t3:	bge	$t0, 4294967295, t4	# = 0x2901ffff 0x10200000
t4:	nop
