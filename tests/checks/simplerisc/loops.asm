// Loops whose loads and stores the checks' fast path runs a whole run at a time: each access
// is asked before it is made, so the warnings are those of one instruction at a time.
.main:
    mov r1, 200         // 4 words at 200 stored first
    mov r2, 4
fill:
    st r2, 0[r1]
    add r1, r1, 4
    sub r2, r2, 1
    cmp r2, 0
    bgt fill
    mov r1, 200
    mov r2, 6           // two words past them
    mov r3, 0
sum:
    ld r4, 0[r1]        // expect: warning[uninitialised]
    add r3, r3, r4
    add r1, r1, 4
    sub r2, r2, 1
    cmp r2, 0
    bgt sum
    call peek
    b done
// Moves sp, addresses memory through it in a run that goes on with a branch, and does not
// give sp back.
peek:
    sub sp, sp, 4
    st ra, 0[sp]
    ld ra, 0[sp]
    b peeked
peeked:
    ret                 // expect: warning[stack]
done:
    nop
