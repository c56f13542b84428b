#!/usr/bin/env python3
"""Writes kuatia.def, the module-definition file of kuatia.dll, from the C ABI description.

Usage: windows_def.py include/kuatia.abi.json ARCH [STDCALL_NAMES]   (ARCH: x64 or x86; the .def goes to stdout)

Every function of include/kuatia.abi.json is exported under its C name (cdecl, undecorated on both architectures).
STDCALL_NAMES, when given, is a file of the stdcall entry points (kuatia_sc_*, ffi/src/stdcall.rs) one a line, as
the compiler named them: `kuatia_sc_ruc_dv@16` on x86 (the argument bytes after the @; the DLL exports the name
before it, and `dlltool -k` makes an import library that maps one to the other), `kuatia_sc_ruc_dv` on x64.
scripts/windows-check.sh compares the result with the DLL's export table (objdump -p), so a function added to the
ffi crate without a regenerated description, or an export the description does not know, fails the check.
"""
import json
import re
import sys


def main() -> int:
    if len(sys.argv) not in (3, 4) or sys.argv[2] not in ("x64", "x86"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    with open(sys.argv[1], encoding="utf-8") as f:
        abi = json.load(f)
    names = sorted(fn["name"] for fn in abi["functions"])
    stdcall = []
    if len(sys.argv) == 4:
        with open(sys.argv[3], encoding="utf-8") as f:
            stdcall = sorted(line.strip() for line in f if line.strip())
        pattern = r"kuatia_sc_[a-z0-9_]+" + (r"@[0-9]+" if sys.argv[2] == "x86" else "")
        bad = [n for n in stdcall if not re.fullmatch(pattern, n)]
        if bad or not stdcall:
            print("windows_def.py: unexpected stdcall names %s" % (bad or "(none)"), file=sys.stderr)
            return 1
    print("; kuatia.dll %s (%s), generated from include/kuatia.abi.json by tools/windows_def.py"
          % (abi["version"], sys.argv[2]))
    print("LIBRARY kuatia.dll")
    print("EXPORTS")
    for name in names:
        print("    " + name)
    if stdcall:
        print("; stdcall entry points for VB6 / Visual FoxPro (include/kuatia_stdcall.h)")
        for name in stdcall:
            print("    " + name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
