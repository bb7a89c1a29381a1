// Every convention kept: ra and r1 saved on the stack around a nested call and restored.
.main:
    mov r1, 4
    call twice
    add r2, r1, r0
    b done
twice:
    sub sp, sp, 8
    st ra, 4[sp]
    st r1, 0[sp]
    add r0, r1, r1
    call nothing
    ld r1, 0[sp]
    ld ra, 4[sp]
    add sp, sp, 8
    ret
nothing:
    ret
done:
    nop
