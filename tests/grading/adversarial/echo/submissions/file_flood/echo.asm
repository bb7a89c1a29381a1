# Writes 64 KiB at a time to one file until a write fails: the sandbox holds 16 MiB, so exactly
# 256 writes succeed; then it echoes as it should. Without a cap it prints NO CAP.
        .data
name:   .asciiz "big.bin"
line:   .space 64
nocap:  .asciiz "NO CAP\n"
chunk:  .space 65536
        .text
main:   la $a0, name
        li $a1, 1
        li $v0, 13
        syscall
        move $s0, $v0
        li $s1, 0
more:   move $a0, $s0
        la $a1, chunk
        li $a2, 65536
        li $v0, 15
        syscall
        bltz $v0, full
        addiu $s1, $s1, 1
        li $t0, 300
        blt $s1, $t0, more
        li $v0, 4
        la $a0, nocap
        syscall
        li $v0, 10
        syscall
full:   li $t0, 256
        bne $s1, $t0, wrong
        li $v0, 8
        la $a0, line
        li $a1, 64
        syscall
        li $v0, 4
        la $a0, line
        syscall
        li $v0, 10
        syscall
wrong:  li $v0, 1
        move $a0, $s1
        syscall
        li $v0, 10
        syscall
