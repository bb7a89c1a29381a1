asmdbg run --profile pennsim video_denied.asm --peek xC000
pennsim-run --list xC000 lc3os.asm video_denied.asm
