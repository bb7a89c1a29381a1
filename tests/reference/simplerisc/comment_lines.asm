/* Every line that keeps a character once its block comments are gone is an instruction slot in
   the course interpreter: the @ comment lines and the line of blanks below each move the return
   addresses after them; the empty lines and the block comments do not. */
@ a header comment
double:
	@ r2 = 2 * r1
	add r2, r1, r1
	st ra, 0[sp]
	ret
   
/* not a slot */
.main:
	mov r1, 21
	call double
	ld r3, 0[sp]
	.print r2, r3
