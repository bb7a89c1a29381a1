# Opens, writes and closes a file for ever: every instruction or so a system call that reaches
# the disk. The time limit must hold within a tenth of a second.
        .data
name:   .asciiz "slow.txt"
byte:   .ascii "x"
        .text
main:   la $a0, name
        li $a1, 9
        li $v0, 13
        syscall
        move $a0, $v0
        la $a1, byte
        li $a2, 1
        li $v0, 15
        syscall
        li $v0, 16
        syscall
        j main
