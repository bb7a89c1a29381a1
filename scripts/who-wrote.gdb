# Who set CURRENT_PLAYER? Time travel answers in one command: watch the word, then run
# backwards to the store that last wrote it, with the stack of that moment.
#
#   asmdbg debug programs/lc3/dots.asm          # prints "console: /dev/pts/N"
#   screen /dev/pts/N                           # play a few moves: B0, A1, C1, ...
#   gdb-multiarch -ex 'target remote :1234'     # continue, Ctrl-C once the game waits, then:
#   (gdb) source scripts/who-wrote.gdb
#
# gdb stops on the store (ST R1, CURRENT_PLAYER in UPDATE_STATE) with the values seen
# backwards ("Old value" is the value now, "New value" the one before the store), and `bt`
# shows who called it. `continue` then runs forward again through the recorded moves (the
# console shows nothing twice) and on into the live game.
set pagination off
watch CURRENT_PLAYER
reverse-continue
info line *$pc
bt
delete
