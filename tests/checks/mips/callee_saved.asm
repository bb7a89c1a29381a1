# f changes $s0 without saving it; main goes on counting with it.
        .text
main:   li   $s0, 10
        jal  f
        addi $s0, $s0, 1
        li   $v0, 10
        syscall
f:      li   $s0, 3
        jr   $ra                # expect: warning[callee-saved]
