asmdbg run data_segment_instruction.asm
java Mars nc me data_segment_instruction.asm
