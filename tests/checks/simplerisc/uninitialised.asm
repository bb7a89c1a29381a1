// r2 and r3 were never set; the word at 100 was never stored to.
.main:
    add r1, r2, r3      // expect: warning[uninitialised]
    mov r4, 100
    ld r5, 0[r4]        // expect: warning[uninitialised]
