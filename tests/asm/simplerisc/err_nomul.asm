// options: no-mul strict
// The course variant without hardware multiply/divide.
.main:
	mul r1, r2, r3         // error: `mul` does not exist in this course variant: --no-mul selects the SimpleRISC without hardware multiply/divide
	divu r1, r2, 3         // error: `divu` does not exist in this course variant
	mod r1, r2, 3          // error: `mod` does not exist
	.encode mul r1, r1, r1 // error: `mul` does not exist
	call mul
mul: add r1, r1, r1
