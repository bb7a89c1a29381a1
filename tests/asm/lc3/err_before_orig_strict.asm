; options: strict
; lc3as reports the label and the instruction, then assembles on at x3000 (output suppressed).
START	AND R0, R0, #0	; error@1+5: label appears before .ORIG ; error@1+20: instruction appears before .ORIG
	HALT
	.ORIG x3000	; ignored without a word, as lc3as does
	.END
