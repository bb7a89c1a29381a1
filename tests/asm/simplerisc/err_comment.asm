// An unterminated block comment is an error (the course interpreter: "Error: Unterminated Comment!").
.main:
	nop
	/* never closed // error: Unterminated Comment: this
	add r1, r1, 1
