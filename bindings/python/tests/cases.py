"""The cross-face conformance cases (tests/fixtures/cases/*.json) that Rust, C, WASM and every binding replay."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Dict, List

# The checkout (fixtures, test certificates, docs); $KUATIA_REPO when the tests run from a copy against an installed
# wheel (scripts/packages-check.sh).
ROOT = Path(os.environ.get("KUATIA_REPO") or Path(__file__).resolve().parents[3])
CASES_DIR = ROOT / "tests" / "fixtures" / "cases"
CERTS = ROOT / "tests" / "fixtures" / "certs"
SANDBOX_CSC = "ABCD0000000000000000000000000000"


def load() -> List[Dict[str, Any]]:
    """Every case, with its file stem as ``name``."""
    out = []
    for path in sorted(CASES_DIR.glob("*.json")):
        case = json.loads(path.read_text(encoding="utf-8"))
        case["name"] = path.stem
        out.append(case)
    return out
