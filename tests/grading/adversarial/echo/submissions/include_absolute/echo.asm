.include "@SPEC@/solution/echo.asm"
