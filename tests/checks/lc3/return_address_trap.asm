; PRINT uses PUTS, whose TRAP overwrites R7 (2nd edition): PRINT's RET never gets back.
        .ORIG x3000
        JSR PRINT
        HALT
PRINT   LEA R0, MSG
        PUTS                    ; expect: warning[return-address]
        RET
MSG     .STRINGZ "hi"
        .END
