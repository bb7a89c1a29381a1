# Macro errors, with MARS's texts.
	.macro				# error: ".macro" directive requires at least one argument.
	.end_macro
	.macro	5x			# error: Invalid Macro name "5x"
	.end_macro
	.macro	m (%a, b)		# error: Invalid macro argument 'b'
	.end_macro
	.macro	rec
	rec				# error: Detected a macro expansion loop
	.end_macro
	.macro	two (%a, %b)
	add	%a, %a, %b
	.end_macro
	.text
	rec
	two	$t0			# error: forward reference or invalid parameters for macro "two"
	two	$t0, $t1		# a well-formed call
