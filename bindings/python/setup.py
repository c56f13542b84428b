"""Bundles libkuatia into the package at build time, so `pip install ./bindings/python` needs no compiler.

The library is taken from $KUATIA_LIB, else ../../target/release, else ../../target/debug (build it first with
`cargo build -p kuatia-ffi --release`). The wheel is marked platform-specific because it carries a native library.
"""

import os
import shutil
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = Path(__file__).resolve().parent
NAME = {"darwin": "libkuatia.dylib", "win32": "kuatia.dll"}.get(sys.platform, "libkuatia.so")


def find_library() -> Path:
    env = os.environ.get("KUATIA_LIB")
    candidates = [Path(env)] if env else []
    candidates += [HERE.parent.parent / "target" / p / NAME for p in ("release", "debug")]
    for c in candidates:
        if c.is_file():
            return c
    sys.exit(f"{NAME} not found (tried {', '.join(map(str, candidates))}); run `cargo build -p kuatia-ffi --release`")


class BuildPy(build_py):
    """Copies the shared library next to the package's modules."""

    def run(self) -> None:
        super().run()
        dest = Path(self.build_lib) / "kuatia" / NAME
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(find_library(), dest)


class BinaryDistribution(Distribution):
    """A wheel with a native library inside is not pure Python."""

    def has_ext_modules(self) -> bool:
        return True


setup(cmdclass={"build_py": BuildPy}, distclass=BinaryDistribution)
