# Errors MARS reports, one per line.
	.text
	add	$t0, $t1		# error: Too few or incorrectly formatted operands. Expected: add $t1,$t2,$t3
	addi	$t0, $t1, label		# error: "label": operand is of incorrect type
	lui	$t0, -1			# error: "-1": operand is out of range
	sll	$t0, $t1, 32		# error: "32": operand is out of range
	foo	$t0			# error: "foo" is not a recognized operator
	j	nowhere			# error: Symbol "nowhere" not found in symbol table.
dup:	nop
dup:	nop				# error: label "dup" already defined
	.word	5			# error: directive cannot appear in text segment
	add	$t0, $t1, $t2, $t3	# error: Too many or incorrectly formatted operands
	add.s	$f0, $t1, $f2		# error: "$t1": operand is of incorrect type
	.ktext
kt:	nop
	.text
	j	kt			# error: Jump target word address beyond 26-bit range
