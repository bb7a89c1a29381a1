asmdbg run comment_lines.asm
interpreter comment_lines.asm
