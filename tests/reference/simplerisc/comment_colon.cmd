asmdbg run comment_colon.asm
interpreter comment_colon.asm
