# What MARS 4.5 still rejects: a sign defeats Binary.stringToInt's unsigned fallback, so these
# tokens are read as reals (Double.parseDouble) and fit no integer operand; an unsigned value
# whose pattern is negative is out of range where only an unsigned 16-bit operand fits.
	.text
	li	$t0, -2147483649	# error: "-2147483649": operand is of incorrect type
	li	$t0, +2147483648	# error: "+2147483648": operand is of incorrect type
	lui	$t0, 4294967295		# error: "4294967295": operand is out of range
	.data
	.word	-2147483649		# error: "-2147483649" is not a valid integer constant or label
