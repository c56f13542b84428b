/* A TEST FIXTURE FOR WINE ONLY, never shipped: a bcryptprimitives.dll exporting ProcessPrng over RtlGenRandom.
 *
 * Rust's standard library for the Windows targets (Windows 10 and later) takes its random bytes from
 * bcryptprimitives.dll!ProcessPrng, which every supported Windows has and Debian's Wine 8 lacks: kuatia.dll then
 * fails to load under Wine (c0000139, entry point not found). scripts/windows-check.sh builds this DLL with mingw-w64
 * and puts it beside the test programs, so Wine finds it before its own. On Windows the system's DLL is used and
 * this file plays no part (docs/windows.md, "Wine notes").
 *
 * ProcessPrng(pbData, cbData) fills the buffer and always returns TRUE (its documented contract); RtlGenRandom
 * (advapi32!SystemFunction036) takes a ULONG length, so larger requests go in pieces. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
    while (len > 0) {
        ULONG n = len > 0x40000000u ? 0x40000000u : (ULONG)len;
        if (!SystemFunction036(data, n)) return FALSE;
        data += n;
        len -= n;
    }
    return TRUE;
}
