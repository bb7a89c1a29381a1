; Profile `lc3sim`: Steven Lumetta's lc3sim (2nd edition); the routines are in
; second_edition.asm. lc3sim has no exceptions: an illegal instruction stops the simulator itself,
; so there are no handlers here. Texts as lc3sim prints them (isa-specs A.4); the register dump
; lc3sim prints after HALT is the simulator's, not the guest's, output.

HALT_TEXT       .STRINGZ "\n\n--- halting the LC-3 ---\n\n"
IN_PROMPT       .STRINGZ "\nInput a character> "
BAD_TRAP_TEXT   .STRINGZ "\n\n--- undefined trap executed ---\n\n"
