# Directives MARS does not know are ignored with a warning; .set is ignored.
	.text
	.ent	main			# warning: MARS does not recognize the .ent directive.  Ignored.
	.set	noreorder		# warning: MARS currently ignores the .set directive.
	.globl	main
main:	nop				# = 0x00000000
	.end	main			# warning: MARS does not recognize the .end directive.  Ignored.
