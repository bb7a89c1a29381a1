// Forms asmdbg accepts but the course interpreter rejects: warnings by default
// (err_interpreter_rejects.asm: errors under --strict).
.main :                    // warning@1+7: the course interpreter rejects this line: a space before a label's `:` (asmdbg accepts it)
	mov r1, 0x10// sixteen // warning@14+2: the course interpreter rejects this line: `//` right after a hex immediate (asmdbg accepts it)
	mov r2, 16 // decimal  // = 0x4c800010
	.print r1
