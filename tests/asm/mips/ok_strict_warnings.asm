# What MARS 4.5 accepts without a word and --strict warns about. Branches further than a
# 16-bit offset reaches: the instruction word keeps the offset's low 16 bits and the branch runs
# with the whole displacement (tests/reference/mars/far_branch_*). An instruction in a data
# segment: dropped.
# options: strict
	.data
x:	.word 1
	add $t0, $t0, $t0	# warning@2+3: "add" is ignored: MARS drops instructions written in a data segment
	.text
main:	beq $zero, $zero, far	# = 0x10000001 # warning@25+3: branch target is 65537 words away, beyond a 16-bit offset
	bne $t0, $t1, near	# = 0x15090000
near:	blt $t0, $t1, far	# = 0x0109082a 0x1420fffe # warning: branch target is 65534 words away
	.text 0x00440008
far:	bgez $zero, main	# = 0x0401fffd # warning: branch target is -65539 words away
