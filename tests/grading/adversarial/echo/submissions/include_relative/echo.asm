.include "../../solution/echo.asm"
