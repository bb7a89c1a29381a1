// outer calls inner without saving ra: its ret comes back to itself forever.
.main:
    call outer
    b done
outer:
    call inner          // expect: warning[return-address]
    ret
inner:
    ret
done:
    nop
