# $t0 counts from whatever it held; the heap sbrk gives was never stored to.
        .text
main:   addi $t0, $t0, 1        # expect: warning[uninitialised]
        li   $v0, 9
        li   $a0, 16
        syscall
        lw   $t1, 0($v0)        # expect: warning[uninitialised]
        li   $v0, 10
        syscall
