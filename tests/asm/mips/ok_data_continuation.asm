# A data line that starts with a value extends the previous data directive (MARS), and
# labels are allowed in .word/.half/.byte, cut to the item size.
	.data
arr:	.word 1, 2			# bytes: 01 00 00 00 02 00 00 00
	3, 4				# bytes: 03 00 00 00 04 00 00 00
msg:	.ascii "ab"			# bytes: 61 62
	"cd"				# bytes: 63 64
lb:	.byte arr			# bytes: 00
hb:	.half lb			# bytes: 14 00
	add	$t0, $t0, $t0		# dropped without a word, as MARS does (--strict warns: ok_strict_warnings.asm)
	.data
after:	.word 9				# at: 0x10010018
