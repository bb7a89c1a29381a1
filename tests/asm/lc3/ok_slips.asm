; Assembly slips: a line whose only word is one edit from an instruction or trap alias is a
; label (legal, as in lc3tools), and nothing refers to it: a warning says what it looks like.
	.ORIG x3000
	LEA R0, MSG		; = 0xE004
	PUST			; warning@2+4: label `PUST` looks like the instruction PUTS
	HALTT			; warning@2+5: label `HALTT` looks like the instruction HALT
RETT				; warning@1+4: label `RETT` looks like the instruction RET
; A lone label that is used (a loop's head), an lc3tools name, a word two edits away and a
; label with an instruction after it are meant.
HALTS
	BRnzp HALTS		; = 0x0FFF
	NOP			; = 0x0000
LOOP
ADDX	ADD R1, R1, #1		; = 0x1261
	HALT			; = 0xF025
MSG	.STRINGZ "a"		; = 0x0061 0x0000
	.END
