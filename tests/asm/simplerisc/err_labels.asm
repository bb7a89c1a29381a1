// options: strict
// Label errors (under --strict; by default a bad branch is a warning: ok_dead_code.asm).
.main:
	b .nowhere             // error: The label does not exist: no label `.nowhere` is defined
	call loop              // error: no label `loop` is defined (did you mean `.loop`? the dot is part of the name)
.loop: nop
.loop: nop                 // error: label `.loop` is already defined on line 6
	beq 3                  // error: The label does not exist: `3` is a number; branch and call targets are labels
