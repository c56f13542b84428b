"""The README's Python example runs as written."""

from __future__ import annotations

import contextlib
import io
import re

from cases import ROOT


def test_readme_example_runs() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    m = re.search(r"<!-- python-example -->\s*```python\n(.*?)```", text, re.S)
    assert m, "README.md has no Python example after <!-- python-example -->"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(m.group(1), "README.md", "exec"), {})
    first, second = out.getvalue().splitlines()
    cdc, numero, pdf_len = first.split()
    assert cdc.startswith("0144444401700100100000012202503101") and len(cdc) == 44
    assert numero == "001-001-0000001" and int(pdf_len) > 1000
    assert second.startswith("P12_INVALID ") and "password" not in second.lower()
