// f saves r1 on the stack but returns with r1 changed; main goes on using r1.
.main:
    mov r1, 5
    call f
    add r2, r1, r1
    b done
f:
    st r1, 0[sp]
    mov r1, 7
    ret                 // expect: warning[callee-saved]
done:
    nop
