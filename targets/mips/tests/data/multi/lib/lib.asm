# The second file of the program in ../main.asm: functions and data it makes global.
	.include "say.asm"		# found beside this file
	.globl	sum, greet, numbers, count
	.data
numbers: .word	3, 5, 7, 11, 13
count:	.word	5
nl:	.asciiz	"\n"			# main.asm has its own `nl`
hello:	.asciiz	"hello from lib"
	.text
# $v0 = the sum of the $a1 words at $a0.
sum:	li	$v0, 0
loop:	beqz	$a1, done
	lw	$t0, 0($a0)
	add	$v0, $v0, $t0
	addi	$a0, $a0, 4
	addi	$a1, $a1, -1
	j	loop
done:	jr	$ra
greet:	say(hello)
	say(nl)
	jr	$ra
