# Writes to stderr (fd 2) for ever: the output cap must count it.
        .data
junk:   .ascii "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
        .text
main:   li $a0, 2
        la $a1, junk
        li $a2, 64
        li $v0, 15
        syscall
        j main
