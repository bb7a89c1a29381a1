asmdbg run --profile pennsim video.asm --peek xC000:3 --peek xFDFF
pennsim-run --list xC000:3 --list xFDFF lc3os.asm video.asm
