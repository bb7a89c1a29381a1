# f makes a frame and returns without freeing it; main then moves $sp by half a word.
        .text
main:   jal  f
        addi $sp, $sp, -2       # expect: warning[stack]
        addi $sp, $sp, 2
        li   $v0, 10
        syscall
f:      addi $sp, $sp, -8
        sw   $ra, 4($sp)
        lw   $ra, 4($sp)
        jr   $ra                # expect: warning[stack]
