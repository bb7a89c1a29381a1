/* A label's line with an @ comment after the colon is an instruction slot of its own in the
   course interpreter (an instruction that does nothing), so the return address of the call
   below counts it: r15 is 20, not the 16 of a reader who counts instructions. */
sub: @ prints the return address
	.print ra
	ret
.main:
	mov r1, 1
	call sub
