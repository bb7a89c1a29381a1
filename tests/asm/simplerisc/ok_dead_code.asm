// Lines that do not assemble are warnings by default: the course interpreter reports them only
// if they run, so dead code with a typo does not stop a program (err_labels.asm and
// err_operands.asm: the same under --strict).
.main:
	mov r1, 5              // = 0x4c400005
	b .done                // = 0x90000005
	beq .exit4             // warning@6+6: The label does not exist: no label `.exit4` is defined (the course interpreter reports this only if the line runs)
	b .loop4               // warning@4+6: The label does not exist: no label `.loop4` is defined (the course interpreter reports this only if the line runs)
	add r1, r1             // warning@2+3: invalid instruction: `add` takes a destination, a register, and a register or immediate (3 operands), found 2 (the course interpreter reports this only if the line runs)
	mov r1, 0x12345        // warning: immediate `0x12345` does not fit in 16 bits // warning@25+2: `//` right after a hex immediate
.done:
	.print r1
