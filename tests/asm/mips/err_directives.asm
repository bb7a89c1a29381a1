# Directive errors, with MARS's texts.
	.text
	.align	2			# error: ".align" directive cannot appear in text segment
	.space	4			# error: ".space" directive cannot appear in text segment
	.data
	.align				# error: ".align" requires one operand
	.space	-1			# error: ".space" requires a non-negative integer
	.word	1:0			# error: repetition factor must be positive
	.word	x:2			# error: malformed expression
	.float	abc			# error: "abc" is not a valid floating point constant
	.float	3.4028235e38		# error: "3.4028235e38" is an out-of-range value
	.byte	"s"			# error: is not a valid integer constant or label
	.ascii	5			# error: "5" is not a valid character string
	.globl				# error: ".globl" directive requires at least one argument.
	.globl	5			# error: ".globl" directive argument must be label.
	.globl	nowhere			# error: "nowhere" declared global label but not defined.
	.extern	x			# error: ".extern" directive requires two operands (label and size).
	.extern	5 -1			# error: ".extern" requires a non-negative integer size
	.end_macro			# error: .END_MACRO without .MACRO
	.word	missing			# error: Symbol "missing" not found in symbol table.
	.half	70000			# warning: "70000" is out-of-range for a signed value and possibly truncated
