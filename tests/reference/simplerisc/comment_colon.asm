/* The interpreter reads the first colon of a line as a label's, in an @ comment too; with
   nothing after it the line's code still runs (here `mov r1, 5`), and the comment's word becomes
   a label (`see`, `note`) that nothing uses. A second colon on the line is never looked at. */
.main: @ start: here
	mov r1, 5 @ see:
	@ note:
	add r1, r1, 1
	.print r1
