#!/usr/bin/env python3
"""The C ABI description: reads include/kuatia.h, writes include/kuatia.abi.json and every binding's native layer.

The header is what cbindgen writes from ffi/src (scripts/ffi-check.sh fails when it drifts), so it is already the
one exact statement of the C ABI; this tool reads it back, strictly: every line must be one of the few shapes
cbindgen emits for this crate (a `#define`, a `typedef enum`, an opaque or plain `typedef struct`, a prototype), and
every parameter must be explained by a rule below, or the tool fails. Ownership is read from the doc comments that
cbindgen copies from ffi/src, under a checked convention (docs/c.md, "The ABI description"):

- every type a call hands out (an opaque `kuatia_<t>` through `struct kuatia_<t> **out_*`, a `kuatia_bytes`
  through `struct kuatia_bytes *out_*`, the error through `struct kuatia_error **err`) says in its doc
  "Free it with `kuatia_<t>_free`" (or "freed by `...`"); that function must exist, be `void f(struct T *)` and
  say "Accepts NULL";
- every function returning `const char *` (and every `const char **` out-parameter) says who owns the text:
  "Owned by `<param>`" or "never freed" (static).

Generated from the description (`python3 tools/abigen.py --write`; `check` compares without writing):
  include/kuatia.abi.json                                   the description itself
  bindings/python/kuatia/_abi.py                            ctypes: Bytes, the enums, constants, every signature
  bindings/java/src/main/java/dev/kuatia/KuatiaLibrary.java JNA interface (all functions)
  bindings/java/src/main/java/dev/kuatia/{Status,KudeFormat}.java
  bindings/php/src/Abi.php, bindings/php/src/Status.php     FFI::cdef declarations, enum constants
  bindings/go/abi_gen.go                                    the Status constants and their names
  bindings/dotnet/Native.g.cs                               C# P/Invoke declarations (Cdecl)

Usage: python3 tools/abigen.py (check | --write) [--root DIR] [--header FILE]
"""

from __future__ import annotations

import argparse
import ast
import json
import operator
import re
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parent))
import abigen_targets  # noqa: E402  (the emitters, one function per binding)

DESCRIPTION = "include/kuatia.abi.json"
SCALARS = {"bool", "uint8_t", "uint16_t", "uint32_t", "uint64_t", "int32_t", "int64_t", "size_t"}
FREE_RE = re.compile(r"[Ff]ree(?:d)?(?: it)? (?:with|by) `(kuatia_\w+_free)`")


class AbiError(Exception):
    """The header has a shape or a doc comment this tool has no rule for."""


def doc_text(comment: str) -> str:
    """The text of a `/** ... */` block: one line per line, the leading ` * ` removed."""
    body = comment.strip()[3:-2]
    lines = [re.sub(r"^\s*\* ?", "", ln).rstrip() for ln in body.splitlines()]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines)


def ctype(text: str) -> Dict[str, Any]:
    """`const struct kuatia_signer *` -> {"c", "base", "const", "pointer", "tag"}; fails on anything else."""
    t = " ".join(text.replace("*", " * ").split())
    m = re.fullmatch(r"(const )?(?:(struct|enum) )?(\w+)((?: \*)*)", t)
    if not m:
        raise AbiError(f"unsupported C type `{text}`")
    pointer = m[4].count("*")
    spelled = (m[1] or "") + (f"{m[2]} " if m[2] else "") + m[3] + (" " + "*" * pointer if pointer else "")
    return {"c": spelled, "base": m[3], "const": bool(m[1]), "pointer": pointer, "tag": m[2] or ""}


def eval_int(expr: str) -> int:
    """A `#define`'s integer expression (digits, + - * and parentheses only)."""
    ops = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul}

    def ev(node: ast.AST) -> int:
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return node.value
        if isinstance(node, ast.BinOp) and type(node.op) in ops:
            return ops[type(node.op)](ev(node.left), ev(node.right))
        raise AbiError(f"unsupported #define expression `{expr}`")

    return ev(ast.parse(expr, mode="eval").body)


def parse_header(text: str) -> Dict[str, Any]:
    """The raw items of the header, in order: constants, enums, opaque types, structs, functions."""
    text = text.replace("\r\n", "\n")
    # The file's leading /* ... */ (not a doc comment) and the other plain /* */ notes carry no declarations.
    text = re.sub(r"/\*(?!\*).*?\*/", "", text, flags=re.S)
    text = re.sub(r"#ifdef __cplusplus\n(?:extern \"C\" \{|\}  // extern \"C\")\n#endif  ?// __cplusplus", "", text)
    out: Dict[str, Any] = {"constants": [], "enums": [], "opaque": [], "structs": [], "functions": []}
    pos, doc = 0, ""
    item = re.compile(
        r"\s*(?:(?P<doc>/\*\*.*?\*/)"
        r"|(?P<pp>#(?:ifndef|endif|include)[^\n]*)"
        r"|#define (?P<dname>\w+)(?: (?P<dval>[^\n]+))?"
        r"|typedef enum (?P<ename>\w+) \{(?P<ebody>.*?)\} (?P=ename);"
        r"|typedef struct (?P<oname>\w+) (?P=oname);"
        r"|typedef struct (?P<sname>\w+) \{(?P<sbody>.*?)\} (?P=sname);"
        r"|(?P<fret>[\w ]+?\**)\s*\b(?P<fname>kuatia_\w+)\((?P<fparams>[^)]*)\);)",
        re.S,
    )
    while pos < len(text):
        if not text[pos:].strip():
            break
        m = item.match(text, pos)
        if not m:
            raise AbiError(f"unrecognised header text: {text[pos:pos + 120].strip()!r}")
        pos = m.end()
        if m["doc"]:
            doc = doc_text(m["doc"])
            continue
        if m["pp"]:
            doc = ""
            continue
        if m["dname"]:
            name, val = m["dname"], (m["dval"] or "").strip()
            if name == "KUATIA_H" and not val:
                continue
            value: Any = json.loads(val) if val.startswith('"') else eval_int(val)
            out["constants"].append({"name": name, "value": value, "doc": doc})
        elif m["ename"]:
            variants, vdoc = [], ""
            for part in re.finditer(r"\s*(?:(/\*\*.*?\*/)|(\w+) = (-?\d+),)", m["ebody"], flags=re.S):
                if part[1]:
                    vdoc = doc_text(part[1])
                else:
                    variants.append({"name": part[2], "value": int(part[3]), "doc": vdoc})
                    vdoc = ""
            prefix = m["ename"].upper() + "_"
            for v in variants:
                if not v["name"].startswith(prefix):
                    raise AbiError(f"enum {m['ename']}: variant {v['name']} lacks the prefix {prefix}")
                v["short"] = v["name"][len(prefix):]
            out["enums"].append({"name": m["ename"], "doc": doc, "variants": variants})
        elif m["oname"]:
            out["opaque"].append({"name": m["oname"], "doc": doc})
        elif m["sname"]:
            fields, fdoc = [], ""
            for part in re.finditer(r"\s*(?:(/\*\*.*?\*/)|([^;/]+?)(\w+);)", m["sbody"], flags=re.S):
                if part[1]:
                    fdoc = doc_text(part[1])
                else:
                    fields.append({"name": part[3], "type": ctype(part[2]), "doc": fdoc})
                    fdoc = ""
            out["structs"].append({"name": m["sname"], "doc": doc, "fields": fields})
        else:
            params = []
            raw = " ".join(m["fparams"].split())
            if raw != "void":
                for p in raw.split(","):
                    pm = re.fullmatch(r"\s*(.*?[\s*])(\w+)\s*", p)
                    if not pm:
                        raise AbiError(f"{m['fname']}: unsupported parameter `{p.strip()}`")
                    params.append({"name": pm[2], "type": ctype(pm[1])})
            out["functions"].append({"name": m["fname"], "doc": doc, "returns": ctype(m["fret"]), "params": params})
        doc = ""
    return out


def free_of(name: str, doc: str, functions: Dict[str, Dict[str, Any]]) -> str:
    """The free function a type's doc names, checked against the convention."""
    found = set(FREE_RE.findall(doc))
    if len(found) != 1:
        raise AbiError(f"{name}: its doc must name its free function once (\"Free it with `kuatia_..._free`\"), "
                       f"found {sorted(found) or 'none'}")
    free = found.pop()
    f = functions.get(free)
    if f is None:
        raise AbiError(f"{name}: its doc names {free}, which the header does not declare")
    ps = f["params"]
    if f["returns"]["c"] != "void" or len(ps) != 1 or ps[0]["type"]["base"] != name or ps[0]["type"]["pointer"] != 1 \
            or ps[0]["type"]["const"]:
        raise AbiError(f"{free} must be `void {free}(struct {name} *)`")
    if "Accepts NULL" not in f["doc"]:
        raise AbiError(f"{free}: its doc must say \"Accepts NULL\"")
    return free


def text_owner(fname: str, subject: str, doc: str, params: List[str]) -> Dict[str, Any]:
    """Who owns a `const char *` a function returns or writes: a parameter, or nobody (static)."""
    m = re.search(r"[Oo]wned by `(\w+)`", doc)
    if m:
        if m[1] not in params:
            raise AbiError(f"{fname}: {subject} is \"owned by `{m[1]}`\", which is not a parameter")
        return {"ownership": "borrowed", "owner": m[1]}
    if "never freed" in doc:
        return {"ownership": "static"}
    raise AbiError(f"{fname}: {subject} is a `const char *`: its doc must say \"Owned by `<param>`\" or "
                   "\"never freed\"")


def describe(header_text: str) -> Dict[str, Any]:
    """The description: the header's items with a role for every parameter and the ownership of every result."""
    raw = parse_header(header_text)
    functions = {f["name"]: f for f in raw["functions"]}
    enums = {e["name"] for e in raw["enums"]}
    frees: Dict[str, str] = {}
    for t in raw["opaque"] + raw["structs"]:
        t["free"] = free_of(t["name"], t["doc"], functions)
        frees[t["name"]] = t["free"]
    opaque = {t["name"] for t in raw["opaque"]}
    for f in raw["functions"]:
        ps, names = f["params"], [p["name"] for p in f["params"]]
        r = f["returns"]
        if r["c"] == "void":
            f["result"] = {"kind": "void"}
        elif r["tag"] == "enum" and r["base"] == "kuatia_status" and not r["pointer"]:
            f["result"] = {"kind": "status"}
        elif r["c"] == "const char *":
            f["result"] = {"kind": "text", **text_owner(f["name"], "the result", f["doc"], names)}
        elif r["base"] in SCALARS and not r["pointer"]:
            f["result"] = {"kind": "scalar"}
        else:
            raise AbiError(f"{f['name']}: no rule for the return type `{r['c']}`")
        skip = False
        for i, p in enumerate(ps):
            t, n = p["type"], p["name"]
            nxt = ps[i + 1] if i + 1 < len(ps) else None
            if skip:
                skip = False
                p["role"] = {"kind": "length", "of": ps[i - 1]["name"]}
            elif t["c"] == "const uint8_t *" and nxt is not None and nxt["type"]["c"] == "size_t":
                p["role"] = {"kind": "in_bytes", "length": nxt["name"]}
                skip = True
            elif t["c"] == "struct kuatia_error **" and n == "err" and i == len(ps) - 1:
                p["role"] = {"kind": "error", "free": frees["kuatia_error"]}
            elif t["tag"] == "struct" and t["base"] in frees and t["pointer"] == 1 and not t["const"] \
                    and frees[t["base"]] == f["name"]:
                p["role"] = {"kind": "release", "type": t["base"]}
            elif t["tag"] == "struct" and t["base"] in opaque and t["pointer"] == 1 and t["const"]:
                p["role"] = {"kind": "borrow", "type": t["base"]}
            elif t["c"] == "struct kuatia_bytes *" and n.startswith("out_"):
                p["role"] = {"kind": "out_bytes", "free": frees["kuatia_bytes"]}
            elif t["tag"] == "struct" and t["base"] in opaque and t["pointer"] == 2 and n.startswith("out_"):
                p["role"] = {"kind": "out_handle", "type": t["base"], "free": frees[t["base"]]}
            elif t["base"] in SCALARS and t["pointer"] == 0:
                p["role"] = {"kind": "scalar"}
                em = re.search(rf"`{n}` is an? \[?`(kuatia_\w+)`", f["doc"])
                if em and em[1] in enums:
                    p["role"]["enum"] = em[1]
            elif t["base"] in SCALARS and t["pointer"] == 1 and not t["const"] and n.startswith("out_"):
                p["role"] = {"kind": "out_scalar"}
            elif t["c"] == "const char *":
                # NUL-terminated text the call only reads (a language tag); NULL is allowed where the doc says.
                p["role"] = {"kind": "in_text"}
            elif t["c"] == "const char **":
                p["role"] = {"kind": "out_text", **text_owner(f["name"], f"`{n}`", f["doc"], names)}
            else:
                raise AbiError(f"{f['name']}: no rule for parameter `{t['c']}{'' if t['pointer'] else ' '}{n}`")
        # The header's convention: a call that returns a status takes `kuatia_error **err` last (the error's own
        # accessors, which read a `const kuatia_error *`, aside).
        if f["result"]["kind"] == "status" and not (ps and ps[-1]["role"]["kind"] == "error") \
                and not (ps and ps[0]["role"].get("type") == "kuatia_error"):
            raise AbiError(f"{f['name']}: returns a kuatia_status but does not take `struct kuatia_error **err` last")
    version = {c["name"]: c["value"] for c in raw["constants"]}
    return {
        "generated_by": "tools/abigen.py from include/kuatia.h (itself generated by cbindgen from ffi/src); do not "
                        "edit: bash scripts/ffi-check.sh --write-abi",
        "version": version.get("KUATIA_VERSION"),
        "abi_version": version.get("KUATIA_ABI_VERSION"),
        "constants": [c for c in raw["constants"] if isinstance(c["value"], int) and "VERSION" not in c["name"]],
        "enums": raw["enums"],
        "opaque": raw["opaque"],
        "structs": raw["structs"],
        "functions": raw["functions"],
    }


def render_description(desc: Dict[str, Any]) -> str:
    return json.dumps(desc, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def outputs(desc: Dict[str, Any]) -> Dict[str, str]:
    """Every generated file (path relative to the root -> content)."""
    files = {DESCRIPTION: render_description(desc)}
    files.update(abigen_targets.emit_all(desc))
    return files


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("mode", nargs="?", choices=["check"], default="check")
    ap.add_argument("--write", action="store_true", help="write the generated files instead of comparing")
    ap.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent)
    ap.add_argument("--header", type=Path, help="default: ROOT/include/kuatia.h")
    args = ap.parse_args()
    root = args.root.resolve()
    header = (args.header or root / "include" / "kuatia.h").resolve()
    try:
        desc = describe(header.read_text(encoding="utf-8"))
    except AbiError as e:
        print(f"abigen: {header}: {e}", file=sys.stderr)
        return 1
    files = outputs(desc)
    stale: List[Tuple[str, Optional[str]]] = []
    for rel, content in files.items():
        path = root / rel
        old = path.read_text(encoding="utf-8") if path.is_file() else None
        if old == content:
            continue
        if args.write:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(content, encoding="utf-8")
            print(f"abigen: wrote {rel}")
        else:
            stale.append((rel, old))
    n = len(desc["functions"])
    if stale:
        import difflib

        for rel, old in stale:
            diff = difflib.unified_diff((old or "").splitlines(), files[rel].splitlines(), rel, rel + " (generated)",
                                        lineterm="", n=1)
            print("\n".join(list(diff)[:40]), file=sys.stderr)
        print(f"abigen: {len(stale)} generated file(s) stale: " + ", ".join(r for r, _ in stale)
              + "\n  run bash scripts/ffi-check.sh --write-abi (or python3 tools/abigen.py --write)", file=sys.stderr)
        return 1
    print(f"abigen: {n} functions, {len(desc['enums'])} enums, {len(files)} generated files "
          + ("written" if args.write else "up to date"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
