# A store over main's first instruction (MARS then stops: the text segment is read-only).
        .text
main:   la   $t0, main
        sw   $zero, 0($t0)      # expect: warning[code-as-data]
        li   $v0, 10
        syscall
