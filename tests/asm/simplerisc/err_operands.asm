// options: strict
// Operand errors (under --strict; by default these lines are warnings and fault only if they
// run: ok_dead_code.asm): every one is reported, each on its line, with the expected message part in a mark.
.main:
	add r1, r2             // error: `add` takes a destination, a register, and a register or immediate (3 operands), found 2
	add r16, r1, r2        // error: `r16` is not a register
	mov r1, 0x12345        // error: immediate `0x12345` does not fit in 16 bits // error@25+2: `//` right after a hex immediate
	mov r1, 65536          // error: does not fit in 16 bits
	mov r1, -32769         // error: does not fit in 16 bits
	mov r1, -32768
	mov r1, 65535
	mov r1, 12abc          // error: `12abc` is neither a register nor a number
	ld r1, 4(r2)           // error: `4(r2)` is not a memory operand
	ld r1, 4[r99]          // error: `r99` is not a register
	st r1, 70000[sp]       // error: immediate `70000` does not fit in 16 bits
	add r1, r2, r3,        // error: invalid instruction: missing operand
	ret r1                 // error: `ret` takes no operands (0 operands), found 1
	frob r1, r2            // error: invalid instruction: unknown instruction `frob`
	.word 5                // error: unknown directive `.word` (SimpleRISC has only `.print` and `.encode`)
	.print                 // error: `.print` needs at least one register
	.print r1, 3           // error: `3` is not a register
	.encode                // error: `.encode` needs an instruction
	.encode .print r1      // error: `.encode` takes a machine instruction, not a directive
	.encode add r1, r2     // error: found 2
	nop ; semicolons are not comments   // error: `nop` takes no operands
	b                      // error: `b` takes a label (1 operand), found 0
