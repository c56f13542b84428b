#!/usr/bin/env python3
"""Binding parity: every function of include/kuatia.h must be wrapped by every C-ABI binding.

Lists the functions of the C ABI description (include/kuatia.abi.json, or the description tools/abigen.py reads
from --header), then looks for a call of each in the non-test sources of each binding
(Python: `lib.kuatia_x`, Go: `C.kuatia_x(`, Java: `LIB.kuatia_x(` or `lib.kuatia_x(` in src/main, so a
declaration in the JNA interface alone does not count; PHP: `->kuatia_x(` in bindings/php/src; C#: `Native.kuatia_x(`
in bindings/dotnet/*.cs, the generated Native.g.cs left out). The declarations
themselves (ctypes, JNA, FFI::cdef, P/Invoke) are generated from the description and drift-checked by
tools/abigen.py (scripts/ffi-check.sh), so they are not compared here. Fails when a binding misses one
that is not on the short exclusion list below, when a binding calls a function the header no longer has, or when
an exclusion names a function that does not exist. Python, Go and PHP are required; Java is checked once
bindings/java exists. The Node package is built on WebAssembly, not on the C library, so it is not checked here.

Usage: python3 tools/binding_parity.py [--root DIR] [--header FILE | --abi FILE]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, List, Set

# Functions a binding may leave out, each with the reason. Keep it short: a new entry needs a real reason.
EXCLUDED: Dict[str, str] = {
    "kuatia_error_count": "kuatia_error_json gives every finding in one call; bindings read that instead",
    "kuatia_error_finding": "kuatia_error_json gives every finding in one call; bindings read that instead",
    "kuatia_error_json": "bindings read the findings in the chosen language, kuatia_error_json_in",
    "kuatia_error_message": "bindings read the message in the chosen language, kuatia_error_message_in",
    "kuatia_sifen_describe": "bindings describe a SIFEN code in the chosen language, kuatia_sifen_describe_in",
}


@dataclass
class Binding:
    """A binding: where its sources are, which are tests, and how a call of a C function looks in it."""

    name: str
    directory: str
    required: bool
    sources: Callable[[Path], List[Path]]
    call: Callable[[str], str]  # regex of one call of the symbol
    any_call: str  # regex capturing every called kuatia_* symbol, for the stale check


def _python_sources(d: Path) -> List[Path]:
    return sorted(p for p in (d / "kuatia").rglob("*.py"))


def _go_sources(d: Path) -> List[Path]:
    return sorted(p for p in d.rglob("*.go") if not p.name.endswith("_test.go"))


def _php_sources(d: Path) -> List[Path]:
    return sorted((d / "src").rglob("*.php"))


def _dotnet_sources(d: Path) -> List[Path]:
    return sorted(p for p in d.glob("*.cs") if p.name != "Native.g.cs")


def _java_sources(d: Path) -> List[Path]:
    main = [p for p in d.rglob("*.java") if "src/main" in p.as_posix()]
    return sorted(main or [p for p in d.rglob("*.java") if "/test" not in p.as_posix()])


BINDINGS = [
    Binding("python", "bindings/python", True, _python_sources,
            lambda s: rf"\blib\.{s}\b", r"\blib\.(kuatia_\w+)"),
    Binding("go", "bindings/go", True, _go_sources,
            lambda s: rf"\bC\.{s}\(", r"\bC\.(kuatia_\w+)\("),
    Binding("java", "bindings/java", False, _java_sources,
            lambda s: rf"\b(?:LIB|lib)\.{s}\(", r"\b(?:LIB|lib)\.(kuatia_\w+)\("),
    Binding("php", "bindings/php", True, _php_sources,
            lambda s: rf"->\s*{s}\(", r"->\s*(kuatia_\w+)\("),
    Binding("dotnet", "bindings/dotnet", True, _dotnet_sources,
            lambda s: rf"\bNative\.{s}\(", r"\bNative\.(kuatia_\w+)\("),
]

def strip_line_comments(text: str, binding: str) -> str:
    """Drops whole-line comments so a symbol named only in a comment does not count as wrapped."""
    markers = {"python": ("#",), "php": ("//", "#", "*", "/*")}.get(binding, ("//",))
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith(markers))


def check(root: Path, source: Path, functions: List[str]) -> int:
    header = source
    if len(functions) < 10:
        print(f"parity: only {len(functions)} functions found in {source}: parser broken?", file=sys.stderr)
        return 1
    failures: List[str] = []
    for name in sorted(EXCLUDED):
        if name not in functions:
            failures.append(f"exclusion list names {name}, which {header.name} does not declare")
    required = [f for f in functions if f not in EXCLUDED]
    print(f"parity: {len(functions)} functions in {header.relative_to(root) if header.is_relative_to(root) else header}"
          f" ({len(EXCLUDED)} excluded)")
    for b in BINDINGS:
        d = root / b.directory
        if not d.is_dir():
            if b.required:
                failures.append(f"{b.name}: {b.directory} does not exist")
            else:
                print(f"  {b.name:<7} skipped ({b.directory} does not exist yet)")
            continue
        sources = b.sources(d)
        text = "\n".join(strip_line_comments(p.read_text(encoding="utf-8", errors="replace"), b.name)
                         for p in sources)
        if not sources:
            failures.append(f"{b.name}: no sources found under {b.directory}")
            continue
        missing = [f for f in required if not re.search(b.call(f), text)]
        called: Set[str] = set(re.findall(b.any_call, text))
        stale = sorted(called - set(functions))
        for f in missing:
            failures.append(f"{b.name}: does not wrap {f}")
        for f in stale:
            failures.append(f"{b.name}: calls {f}, which {header.name} does not declare")
        verdict = "ok" if not missing and not stale else f"{len(missing)} missing, {len(stale)} stale"
        print(f"  {b.name:<7} {len(required) - len(missing)}/{len(required)} wrapped in {len(sources)} files: {verdict}")
    for name, why in sorted(EXCLUDED.items()):
        print(f"  excluded {name}: {why}")
    if failures:
        print("parity FAILED:\n  " + "\n  ".join(failures), file=sys.stderr)
        return 1
    print("parity OK")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent)
    ap.add_argument("--header", type=Path, help="read the description from this header (tools/abigen.py)")
    ap.add_argument("--abi", type=Path, help="default: ROOT/include/kuatia.abi.json")
    args = ap.parse_args()
    root = args.root.resolve()
    if args.header:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        import abigen

        source = args.header.resolve()
        desc = abigen.describe(source.read_text(encoding="utf-8"))
    else:
        source = (args.abi or root / abigen_description()).resolve()
        desc = json.loads(source.read_text(encoding="utf-8"))
    return check(root, source, sorted(f["name"] for f in desc["functions"]))


def abigen_description() -> str:
    return "include/kuatia.abi.json"


if __name__ == "__main__":
    sys.exit(main())
