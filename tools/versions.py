#!/usr/bin/env python3
"""One version for every artefact: prints it, or fails naming the files that disagree (docs/compatibility.md).

Read from: Cargo.toml ([workspace.package]), include/kuatia.h (KUATIA_VERSION and KUATIA_ABI_VERSION),
bindings/python/pyproject.toml, bindings/node/package.json, bindings/java/pom.xml, bindings/dotnet/Kuatia.csproj, and
CHANGELOG.md's newest release.
"""

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def grab(path: str, pattern: str) -> str:
    m = re.search(pattern, (ROOT / path).read_text(encoding="utf-8"), re.M | re.S)
    return m.group(1) if m else f"<none in {path}>"


def main() -> int:
    found = {
        "Cargo.toml": grab("Cargo.toml", r'^\[workspace\.package\].*?^version = "([^"]+)"'),
        "include/kuatia.h": grab("include/kuatia.h", r'^#define KUATIA_VERSION "([^"]+)"'),
        "bindings/python/pyproject.toml": grab("bindings/python/pyproject.toml", r'^version = "([^"]+)"'),
        "bindings/node/package.json": json.loads((ROOT / "bindings/node/package.json").read_text())["version"],
        "bindings/java/pom.xml": grab("bindings/java/pom.xml", r"<artifactId>kuatia</artifactId>\s*<version>([^<]+)<"),
        "bindings/dotnet/Kuatia.csproj": grab("bindings/dotnet/Kuatia.csproj", r"<Version>([^<]+)</Version>"),
        "CHANGELOG.md": grab("CHANGELOG.md", r"^## \[?(\d+\.\d+\.\d+[^\] ]*)\]? "),
    }
    version = found["Cargo.toml"]
    major, minor = version.split(".")[:2]
    abi = f"0.{minor}" if major == "0" else major
    found_abi = grab("include/kuatia.h", r'^#define KUATIA_ABI_VERSION "([^"]+)"')
    bad = [f"{f}: {v}" for f, v in found.items() if v != version]
    if found_abi != abi:
        bad.append(f"include/kuatia.h: KUATIA_ABI_VERSION {found_abi}, expected {abi}")
    if bad:
        print(f"versions differ from Cargo.toml's {version}:\n  " + "\n  ".join(bad), file=sys.stderr)
        return 1
    print(version)
    return 0


if __name__ == "__main__":
    sys.exit(main())
