"""Bundles libkuatia into the package at build time; the wheel then needs no compiler and no Rust (docs/python.md).

Where the library comes from, in order:
  1. $KUATIA_LIB (a built libkuatia.so; scripts/packages-check.sh passes its one release build);
  2. the Rust sources an sdist carries in rust/ (core, service, ffi, the workspace's Cargo.lock): built with cargo;
  3. ../../target/release, then ../../target/debug (a checkout after `cargo build -p kuatia-ffi --release`).

The wheel is tagged py3-none-<platform>: ctypes needs no CPython ABI, only the platform's. `auditwheel repair`
(scripts/packages-check.sh) turns linux_x86_64 into the manylinux tag the library's symbol versions allow.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist
from setuptools.dist import Distribution

try:
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:  # setuptools < 70.1
    from wheel.bdist_wheel import bdist_wheel

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
NAME = {"darwin": "libkuatia.dylib", "win32": "kuatia.dll"}.get(sys.platform, "libkuatia.so")
# What an sdist carries to build the library: the workspace members the C library needs, and the lock file.
RUST_DIRS = ("core", "service", "ffi")
# .cargo/config.toml: aws-lc without CPU-jitter entropy in a build from source too (see the repository's copy).
# The sandbox key and certificate: the core compiles them in (`sandbox_test_signer`) from the shared fixture tree.
RUST_FILES = (
    "Cargo.lock",
    "LICENSE-MIT",
    "LICENSE-APACHE",
    ".cargo/config.toml",
    "tests/fixtures/certs/sandbox.key.pem",
    "tests/fixtures/certs/sandbox.cert.pem",
)


def build_from_source(rust: Path, build_temp: Path) -> Path:
    """Builds libkuatia from an sdist's rust/ tree with cargo (needs Rust >= the workspace's rust-version)."""
    if shutil.which("cargo") is None:
        sys.exit("building kuatia from source needs cargo (https://rustup.rs); or install the binary wheel")
    target = Path(os.environ.get("CARGO_TARGET_DIR", build_temp / "cargo-target")).resolve()
    subprocess.run(
        ["cargo", "build", "--release", "-p", "kuatia-ffi", "--manifest-path", str(rust / "Cargo.toml")],
        check=True,
        # From inside rust/, so cargo reads the sdist's .cargo/config.toml (cargo finds config from the working dir).
        cwd=rust,
        env={**os.environ, "CARGO_TARGET_DIR": str(target)},
    )
    return target / "release" / NAME


def find_library(build_temp: Path) -> Path:
    env = os.environ.get("KUATIA_LIB")
    if env:
        if not Path(env).is_file():
            sys.exit(f"KUATIA_LIB={env} does not exist")
        return Path(env)
    if (HERE / "rust" / "Cargo.toml").is_file():
        return build_from_source(HERE / "rust", build_temp)
    candidates = [REPO / "target" / p / NAME for p in ("release", "debug")]
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
        build_temp = Path(self.get_finalized_command("build").build_temp)
        shutil.copy2(find_library(build_temp), dest)


class Sdist(sdist):
    """Adds rust/: a three-member workspace (core, service, ffi) with the repository's lock file, so pip can build from it."""

    def make_release_tree(self, base_dir: str, files: list) -> None:
        super().make_release_tree(base_dir, files)
        rust = Path(base_dir) / "rust"
        if (HERE / "rust").is_dir():  # an sdist rebuilt from an sdist
            shutil.copytree(HERE / "rust", rust, dirs_exist_ok=True)
            return
        ignore = shutil.ignore_patterns("target", "__pycache__", "*.pyc")
        for d in RUST_DIRS:
            shutil.copytree(REPO / d, rust / d, ignore=ignore, dirs_exist_ok=True)
        for f in RUST_FILES:
            if (REPO / f).is_file():
                (rust / f).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(REPO / f, rust / f)
        workspace = (REPO / "Cargo.toml").read_text(encoding="utf-8")
        members = "members = [" + ", ".join(f'"{d}"' for d in RUST_DIRS) + "]"
        lines = [members if line.startswith("members = ") else line for line in workspace.splitlines()]
        (rust / "Cargo.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")


class BdistWheel(bdist_wheel):
    """py3-none-<platform>: any CPython 3 or PyPy, one platform (the native library's)."""

    def get_tag(self):
        _, _, plat = super().get_tag()
        return "py3", "none", plat


class BinaryDistribution(Distribution):
    """A wheel with a native library inside is not pure Python."""

    def has_ext_modules(self) -> bool:
        return True


setup(cmdclass={"build_py": BuildPy, "sdist": Sdist, "bdist_wheel": BdistWheel}, distclass=BinaryDistribution)
