// f makes a frame and returns without freeing it.
.main:
    call f
    b done
f:
    sub sp, sp, 8
    st ra, 0[sp]
    ld ra, 0[sp]
    ret                 // expect: warning[stack]
done:
    nop
