; PUTS, OUT and HALT through the OS: PennSim boots the OS at x0200, which enters the program at
; x3000 in user mode. Same output and instruction count with asmdbg's built-in OS (hello.cmd)
; and with the OS given as the first file (hello_os_file.cmd).
        .ORIG x3000
        LEA R0, GREETING
        PUTS
        LD R0, BANG
        OUT
        HALT
GREETING .STRINGZ "hello from x3000"
BANG    .FILL x21
        .END
