# outer calls inner without saving $ra: its jr $ra comes back to itself forever.
        .text
main:   jal  outer
        li   $v0, 10
        syscall
outer:  jal  inner              # expect: warning[return-address]
        jr   $ra
inner:  jr   $ra
