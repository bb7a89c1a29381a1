# Writes a file before it reads its input, reads the file back after: a grader that shares the
# run before the first input must carry the file to every case (else this prints FILE GONE).
        .data
word:   .ascii "kept"
back:   .space 8
name:   .asciiz "note.txt"
line:   .space 64
gone:   .asciiz "FILE GONE\n"
        .text
main:   la $a0, name
        li $a1, 1
        li $v0, 13
        syscall
        move $s0, $v0
        move $a0, $s0
        la $a1, word
        li $a2, 4
        li $v0, 15
        syscall
        move $a0, $s0
        li $v0, 16
        syscall
        li $v0, 8               # the first input
        la $a0, line
        li $a1, 64
        syscall
        la $a0, name
        li $a1, 0
        li $v0, 13
        syscall
        move $s0, $v0
        move $a0, $s0
        la $a1, back
        li $a2, 8
        li $v0, 14
        syscall
        li $t0, 4
        bne $v0, $t0, lost
        lw $t1, back
        lw $t2, word
        bne $t1, $t2, lost
        li $v0, 4
        la $a0, line
        syscall
        li $v0, 10
        syscall
lost:   li $v0, 4
        la $a0, gone
        syscall
        li $v0, 10
        syscall
