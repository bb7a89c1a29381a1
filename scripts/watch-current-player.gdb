# Stop every time the turn changes hands in the LC-3 Dots and Boxes game.
#
#   asmdbg debug programs/lc3/dots.asm                      # prints "console: /dev/pts/N"
#   gdb-multiarch -ex 'target remote :1234' -x scripts/watch-current-player.gdb
#   screen /dev/pts/N                                       # play: B0, A1, C1, B2, ..., Q
#
# Each change of CURRENT_PLAYER (1 -> 2, 2 -> 1) stops on the store that makes it, with the old
# and new values; gdb reports the stop after stepping over that store, so the line of the
# storing instruction is printed with `info line *($pc - 2)` (one LC-3 word = 2 gdb bytes).
# A move that completes a box keeps the turn and never touches CURRENT_PLAYER.
set pagination off
set confirm off
watch CURRENT_PLAYER
commands
  info line *($pc - 2)
  print SCORE_PLAYER_ONE
  print SCORE_PLAYER_TWO
  continue
end
continue
# The program's end is first the end of its recorded history (from there `reverse-continue`
# goes back to the last change of turn); one more `continue` ends it.
continue
