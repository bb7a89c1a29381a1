@ A word one edit from an instruction: the line that does not assemble says what it looks like
@ (a warning by default, as the course interpreter reports it only if the line runs).
.main:
	mov r1, 2              @ = 0x4c400002
	nopp                   @ warning@2+4: unknown instruction `nopp`, which looks like the instruction nop
	ad r1, r1, r1          @ warning@2+2: unknown instruction `ad`
