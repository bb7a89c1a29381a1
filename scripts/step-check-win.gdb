# Step through the win check of the MIPS Four in a Row game.
#
#   asmdbg debug programs/mips/four_in_a_row.asm            # prints "console: /dev/pts/N"
#   gdb-multiarch -ex 'target remote :1234' -x scripts/step-check-win.gdb
#   screen /dev/pts/N                                       # type the names, then 1 and 4
#
# Stops at check_win after the first drop, walks through it line by line with `next` (over the
# count_line calls), returns to the caller with `finish`, and prints the board.
set pagination off
set confirm off
break check_win
continue
backtrace
next
next
next
next
next
next
next
next
next
next
next
next
next
next
next
next
next
next
next
next
next
next
next
next
backtrace
finish
python
board = gdb.selected_inferior().read_memory(gdb.parse_and_eval("(char *)&board"), 13 * 29)
for row in range(13):
    print(bytes(board[row * 29:(row + 1) * 29]).decode("latin-1"))
end
