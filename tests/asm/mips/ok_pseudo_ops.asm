# Pseudo-instruction expansions, checked word for word against MARS 4.5's templates.
	.data
msg:	.asciiz "hi"
val:	.word 7
	.text
main:
	li	$v0, 4			# = 0x24020004
	li	$t0, -1			# = 0x2408ffff
	li	$t0, 32767		# = 0x24087fff
	li	$t0, 32768		# = 0x34088000
	li	$t0, 65535		# = 0x3408ffff
	li	$t0, 65536		# = 0x3c010001 0x34280000
	li	$t0, 0x12348765		# = 0x3c011234 0x34288765
	li	$t0, -32769		# = 0x3c01ffff 0x34287fff
	li	$t0, 'A'		# = 0x24080041
	la	$a0, msg		# = 0x3c011001 0x34240000
	la	$a0, val		# = 0x3c011001 0x34240004
	la	$a0, val+4		# = 0x3c011001 0x34240008
	la	$a0, ($t1)		# = 0x21240000
	lw	$t0, val		# = 0x3c011001 0x8c280004
	sw	$t0, val($t1)		# = 0x3c011001 0x00290821 0xac280004
	lw	$t0, 40000($t1)		# = 0x34019c40 0x00290821 0x8c280000
	lw	$t0, ($t1)		# = 0x8d280000
	lw	$t0, -4($sp)		# = 0x8fa8fffc
	l.s	$f0, val		# = 0x3c011001 0xc4200004
	move	$t0, $t1		# = 0x00094021
	not	$t0, $t1		# = 0x01204027
	neg	$t0, $t1		# = 0x00094022
	mul	$t0, $t1, 5		# = 0x20010005 0x71214002
	div	$t0, $t1, $t2		# = 0x15400001 0x0000000d 0x012a001a 0x00004012
	rem	$t0, $t1, 4		# = 0x20010004 0x0121001a 0x00004010
	seq	$t0, $t1, $t2		# = 0x012a4023 0x34010001 0x0101402b
	sgt	$t0, $t1, $t2		# = 0x0149402a
	abs	$t0, $t1		# = 0x00090fc3 0x00294026 0x01014023
	rol	$t0, $t1, 4		# = 0x00090f02 0x00094100 0x01014025
	addi	$t0, $t0, 100000	# = 0x3c010001 0x342186a0 0x01014020
	addiu	$t0, $t0, 40000		# = 0x3c010000 0x34219c40 0x01014021
	andi	$t0, $t1, -1		# = 0x3c01ffff 0x3421ffff 0x01214024
	ori	$t0, 5			# = 0x35080005
	subi	$t0, $t1, 5		# = 0x20010005 0x01214022
L1:	beqz	$t0, L1			# = 0x1100ffff
L2:	blt	$t0, $t1, L2		# = 0x0109082a 0x1420fffe
L3:	beq	$t0, 5, L3		# = 0x20010005 0x1028fffe
L4:	bgt	$t0, 100000, L4		# = 0x3c010001 0x342186a1 0x0101082a 0x1020fffc
L5:	ble	$t0, 5, L5		# = 0x2101ffff 0x28210005 0x1420fffd
L6:	bge	$t0, 100, L6		# = 0x29010064 0x1020fffe
L7:	b	L7			# = 0x0401ffff
	j	main			# = 0x08100000
	jal	main			# = 0x0c100000
