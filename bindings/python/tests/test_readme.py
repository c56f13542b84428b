"""Every Python block of the documentation (README.md, docs/*.md marked `<!-- test: python -->`) runs as written."""

from __future__ import annotations

import contextlib
import io
import re

import pytest

from cases import ROOT

BLOCK = re.compile(r"<!-- test: python -->\n```python\n(.*?)```", re.S)


def doc_blocks() -> list:
    found = []
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for i, m in enumerate(BLOCK.finditer(path.read_text(encoding="utf-8"))):
            found.append(pytest.param(path.name, m.group(1), id=f"{path.name}-{i}"))
    return found


def run(name: str, source: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(source, name, "exec"), {})
    return out.getvalue()


def test_the_docs_have_python_examples() -> None:
    names = {p.values[0] for p in doc_blocks()}
    assert {"README.md", "python.md"} <= names, names


@pytest.mark.parametrize("name,source", doc_blocks())
def test_doc_example_runs(name: str, source: str) -> None:
    printed = run(name, source)
    if "kude_pdf" in source:  # docs/python.md's full example: what it prints is fixed but for the security code
        first, second = printed.splitlines()
        cdc, numero, pdf_len = first.split()
        assert cdc.startswith("0144444401700100100000012202503101") and len(cdc) == 44
        assert numero == "001-001-0000001" and int(pdf_len) > 1000
        assert second.startswith("P12_INVALID ") and "password" not in second.lower()
