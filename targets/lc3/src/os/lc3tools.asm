; Profile `lc3tools`: UT Austin's lc3tools (3rd edition). TRAP enters supervisor mode through
; the supervisor stack and leaves R7 alone, so routines return with RTI. Texts as lc3tools
; prints them (isa-specs A.4), including the missing space in the access-violation banner.
TRAP_RETURN
        RTI

EXC_PRIVILEGE
        LEA R0, PRIVILEGE_TEXT
        PUTS
        HALT
EXC_ILLEGAL
        LEA R0, ILLEGAL_TEXT
        PUTS
        HALT
EXC_ACCESS
        LEA R0, ACCESS_TEXT
        PUTS
        HALT

HALT_TEXT       .STRINGZ "\n\n--- Halting the LC-3 ---\n\n"
IN_PROMPT       .STRINGZ "\nInput a character> "
BAD_TRAP_TEXT   .STRINGZ "\n\n--- Undefined trap executed ---\n\n"
PRIVILEGE_TEXT  .STRINGZ "\n\n--- Privilege violation ---\n\n"
ILLEGAL_TEXT    .STRINGZ "\n\n--- Illegal opcode ---\n\n"
ACCESS_TEXT     .STRINGZ "\n\n--- Access violation---\n\n"
