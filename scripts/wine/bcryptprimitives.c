/*
 * A stand-in for Windows 10's bcryptprimitives.dll, for running asmdbg's Windows build under
 * Wine 8 (Debian 12's), which lacks it: Rust's standard library takes its random numbers (the
 * hash maps' keys) from ProcessPrng there. It draws them from RtlGenRandom (advapi32's
 * SystemFunction036), which Wine has. Test use only (scripts/platforms installs it into the
 * Wine prefix); nothing shipped contains it, and real Windows has its own.
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length)
{
    while (length > 0) {
        ULONG part = length > 0x40000000 ? 0x40000000 : (ULONG)length;
        if (!SystemFunction036(data, part))
            return FALSE;
        data += part;
        length -= part;
    }
    return TRUE;
}
