#!/usr/bin/env python3
"""Binding parity: every function of include/kuatia.h must be wrapped by every C-ABI binding.

Lists the functions the header declares, then looks for a call of each in the non-test sources of each binding
(Python: `lib.kuatia_x`, Go: `C.kuatia_x(`, Java: `LIB.kuatia_x(` or `lib.kuatia_x(` in src/main, so a
declaration in the JNA interface alone does not count; PHP: `->kuatia_x(` in bindings/php/src). For PHP, whose
FFI::cdef carries its own copy of the declarations, it also checks that copy against the header statement by
statement (types, enums, prototypes), so a changed signature cannot go unnoticed. Fails when a binding misses one
that is not on the short exclusion list below, when a binding calls a function the header no longer has, or when
an exclusion names a function that does not exist. Python, Go and PHP are required; Java is checked once
bindings/java exists. The Node package is built on WebAssembly, not on the C library, so it is not checked here.

Usage: python3 tools/binding_parity.py [--root DIR] [--header FILE]
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, List, Set

# Functions a binding may leave out, each with the reason. Keep it short: a new entry needs a real reason.
EXCLUDED: Dict[str, str] = {
    "kuatia_error_count": "kuatia_error_json gives every finding in one call; bindings read that instead",
    "kuatia_error_finding": "kuatia_error_json gives every finding in one call; bindings read that instead",
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
]

# Where the PHP binding keeps the declarations it gives FFI::cdef: a nowdoc `<<<'CDEF' ... CDEF;`.
PHP_CDEF_FILE = "bindings/php/src/Native.php"


def strip_c_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def header_functions(header: Path) -> List[str]:
    """Names of the functions the header declares (not types, macros or names inside comments)."""
    code = strip_c_comments(header.read_text(encoding="utf-8"))
    names = re.findall(r"^[A-Za-z_][\w \t*]*?\b(kuatia_\w+)\s*\(", code, flags=re.M)
    return sorted(set(names))


def c_statements(code: str) -> List[str]:
    """The top-level statements of C declarations (comments, preprocessor lines and the `extern "C"` guard
    dropped), each with its whitespace normalized, so two spellings of one declaration compare equal."""
    code = strip_c_comments(code)
    code = re.sub(r"#ifdef __cplusplus.*?#endif[^\n]*", "", code, flags=re.S)
    code = "\n".join(line for line in code.splitlines() if not line.lstrip().startswith("#"))
    out, cur, depth = [], "", 0
    for ch in code:
        cur += ch
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif ch == ";" and depth == 0:
            out.append(cur)
            cur = ""
    norm = []
    for st in out:
        st = re.sub(r"\s+", " ", st).strip()
        st = re.sub(r"\s*([(){},;*=])\s*", r"\1", st)
        st = st.replace(",}", "}")  # a trailing comma in an enum is the same enum
        norm.append(st)
    return norm


def statement_name(st: str) -> str:
    """The function a prototype declares, or the type a typedef names."""
    m = re.search(r"(kuatia_\w+)\(", st)
    if m:
        return m[1]
    m = re.search(r"(\w+);$", st)
    return m[1] if m else st


def check_php_cdef(root: Path, header_text: str, functions: List[str]) -> List[str]:
    """The PHP binding's FFI::cdef against the header: every statement it declares must be the header's (with one
    documented ABI-identical spelling: inputs `const uint8_t *` are `const char *`, so PHP strings pass by
    pointer), and every required function must be declared there."""
    path = root / PHP_CDEF_FILE
    if not path.is_file():
        return [f"php: {PHP_CDEF_FILE} does not exist"]
    m = re.search(r"<<<'CDEF'\n(.*?)\n\s*CDEF;", path.read_text(encoding="utf-8"), flags=re.S)
    if not m:
        return [f"php: no <<<'CDEF' declarations in {PHP_CDEF_FILE}"]
    same_abi = lambda st: st.replace("const uint8_t*", "const char*")  # noqa: E731
    header = {statement_name(st): same_abi(st) for st in c_statements(header_text)}
    failures = []
    declared = set()
    for st in c_statements(m[1]):
        name = statement_name(st)
        declared.add(name)
        if name not in header:
            failures.append(f"php: CDEF declares {name}, which the header does not")
        elif same_abi(st) != header[name]:
            failures.append(f"php: CDEF declares {name} differently from the header:\n      php:    {st}\n"
                            f"      header: {header[name]}")
    for f in functions:
        if f not in EXCLUDED and f not in declared:
            failures.append(f"php: CDEF does not declare {f}")
    return failures


def strip_line_comments(text: str, binding: str) -> str:
    """Drops whole-line comments so a symbol named only in a comment does not count as wrapped."""
    markers = {"python": ("#",), "php": ("//", "#", "*", "/*")}.get(binding, ("//",))
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith(markers))


def check(root: Path, header: Path) -> int:
    functions = header_functions(header)
    if len(functions) < 10:
        print(f"parity: only {len(functions)} functions found in {header}: parser broken?", file=sys.stderr)
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
        if b.name == "php":
            cdef = check_php_cdef(root, header.read_text(encoding="utf-8"), functions)
            failures += cdef
        else:
            cdef = []
        verdict = "ok" if not missing and not stale and not cdef else \
            f"{len(missing)} missing, {len(stale)} stale, {len(cdef)} declaration differences"
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
    ap.add_argument("--header", type=Path, help="default: ROOT/include/kuatia.h")
    args = ap.parse_args()
    root = args.root.resolve()
    return check(root, (args.header or root / "include" / "kuatia.h").resolve())


if __name__ == "__main__":
    sys.exit(main())
