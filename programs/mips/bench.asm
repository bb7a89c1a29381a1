# Benchmark: sum of (i xor j) over 0 <= i, j < 5000, printed with syscall 1.
# About 100 M instructions (4 per inner iteration). Used by scripts/bench:
#   asmdbg run programs/mips/bench.asm --stats
        .text
main:   li    $t0, 0            # i
        li    $t3, 5000         # bound
        li    $t2, 0            # sum
outer:  li    $t1, 0            # j
inner:  xor   $t4, $t0, $t1
        addu  $t2, $t2, $t4
        addiu $t1, $t1, 1
        bne   $t1, $t3, inner
        addiu $t0, $t0, 1
        bne   $t0, $t3, outer
        move  $a0, $t2
        li    $v0, 1
        syscall
        li    $a0, 10
        li    $v0, 11
        syscall
        li    $v0, 10
        syscall
