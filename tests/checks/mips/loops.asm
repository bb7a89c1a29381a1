# Loops whose loads and stores the checks' fast path runs a whole run at a time: each access
# is asked before it is made, so the warnings are those of one instruction at a time.
        .data
array:  .word 1, 2, 3, 4
        .text
main:   la   $t0, array
        li   $t2, 6             # two words past the array's four
        li   $t3, 0
sum:    lw   $t4, 0($t0)        # expect: warning[uninitialised]
        addu $t3, $t3, $t4
        addiu $t0, $t0, 4
        addiu $t2, $t2, -1
        bgtz $t2, sum
# Heap filled before it is read: no warning.
        li   $v0, 9
        li   $a0, 16
        syscall
        move $t0, $v0
        li   $t2, 4
fill:   sw   $t2, 0($t0)
        sb   $t2, 1($t0)
        addiu $t0, $t0, 4
        addiu $t2, $t2, -1
        bgtz $t2, fill
        move $t2, $t0           # the end
        addiu $t0, $t0, -16
read:   lw   $t4, 0($t0)
        lbu  $t5, 1($t0)
        addiu $t0, $t0, 4
        bne  $t0, $t2, read
        li   $s0, 7
        jal  spill
        addi $s0, $s0, 1
# A clearing loop that starts at main, over instructions that already ran (MARS stops at its
# first store: the text segment is read-only).
        la   $t0, main
        li   $t2, 2
clear:  sw   $zero, 0($t0)      # expect: warning[code-as-data]
        addiu $t0, $t0, 4
        addiu $t2, $t2, -1
        bgtz $t2, clear
        li   $v0, 10
        syscall
# Saves $s0 in a run that goes on with a branch, changes it, and returns without restoring it.
spill:  addiu $sp, $sp, -4
        sw   $s0, 0($sp)
        addi $s0, $s0, 5
        beq  $zero, $zero, spilled
spilled: addiu $sp, $sp, 4
        jr   $ra                # expect: warning[callee-saved]
