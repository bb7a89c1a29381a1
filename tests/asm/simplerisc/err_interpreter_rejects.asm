// options: strict
// Forms the course interpreter rejects are errors under --strict
// (ok_interpreter_rejects.asm: warnings by default).
.main :                    // error@1+7: the course interpreter rejects this line: a space before a label's `:`
	mov r1, 0x10// sixteen // error@14+2: the course interpreter rejects this line: `//` right after a hex immediate
	mov r2, 16 // decimal: accepted by both
	.print r1
