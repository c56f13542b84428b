#!/usr/bin/env bash
# The C# binding check: builds libkuatia (crate kuatia-ffi, debug: the build ffi-check.sh and the other binding
# checks share) unless KUATIA_LIB_DIR points at an existing build, compiles bindings/dotnet (Kuatia.dll, over the
# generated P/Invoke declarations of Native.g.cs) with Mono's mcs at the C# level .NET Framework 4.x projects read,
# with every public item documented (-doc, warnings as errors), then its tests (bindings/dotnet/tests: the shared
# conformance cases, codes.json, the service flow of tests/fixtures/service_flow.json, errors, handles, threads) and
# every C# block of the docs, and runs them under Mono against the library. Idempotent; needs cargo and mono-mcs
# (Debian; .ci/run installs it). No NuGet download: the binding has no dependency.
#
#   KUATIA_LIB_DIR=/path/to/dir   use the libkuatia.so there (no cargo build)
#   KUATIA_PROFILE=release        build and test the release library
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
# Fewer tests than this means a broken discovery, not a pass.
MIN_TESTS=50

note() { printf -- '--> %s\n' "$*"; }
die() { echo "dotnet-check: $*" >&2; exit 1; }

command -v mcs >/dev/null && command -v mono >/dev/null || die "mcs/mono not installed (Debian: mono-mcs)"
TARGET_DIR="$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')"
WORK="$TARGET_DIR/dotnet-check"
if [ -n "${KUATIA_LIB_DIR:-}" ]; then
  LIB_DIR="$(cd "$KUATIA_LIB_DIR" && pwd)"
else
  PROFILE="${KUATIA_PROFILE:-debug}"
  LIB_DIR="$TARGET_DIR/$PROFILE"
  note "building libkuatia ($PROFILE)"
  if [ "$PROFILE" = release ]; then cargo build -p kuatia-ffi --release --locked; else cargo build -p kuatia-ffi --locked; fi
fi
[ -f "$LIB_DIR/libkuatia.so" ] || die "no libkuatia.so in $LIB_DIR"
rm -rf "$WORK" && mkdir -p "$WORK/docs"

note "C# binding: Kuatia.dll and its tests ($(mcs --version))"
MCS=(mcs -langversion:7 -warnaserror -nologo)
# Every .cs of bindings/dotnet but the tests: the generated declarations and the handwritten layer.
mapfile -t SOURCES < <(find bindings/dotnet -maxdepth 1 -name '*.cs' | sort)
"${MCS[@]}" -unsafe -target:library -doc:"$WORK/Kuatia.xml" -out:"$WORK/Kuatia.dll" "${SOURCES[@]}"
# The tests (NativeSmoke.cs is scripts/ffi-check.sh's smoke test of the bare declarations, a program of its own).
mapfile -t TESTS < <(find bindings/dotnet/tests -name '*.cs' ! -name NativeSmoke.cs | sort)
"${MCS[@]}" -r:"$WORK/Kuatia.dll" -r:System.Core.dll -out:"$WORK/kuatia-tests.exe" "${TESTS[@]}"

# The docs' C# blocks: each a whole program, compiled against Kuatia.dll and run (tools/doc_blocks.py).
python3 tools/doc_blocks.py extract csharp "$WORK/docs" >/dev/null || die "no C# block in the docs"
for src in "$WORK"/docs/*.cs; do
  "${MCS[@]}" -r:"$WORK/Kuatia.dll" -r:System.Core.dll -out:"${src%.cs}.exe" "$src"
done

export LD_LIBRARY_PATH="$LIB_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
(cd "$WORK" && mono kuatia-tests.exe "$ROOT" "$MIN_TESTS" >"$WORK/tests.log" 2>&1) \
  || { grep -v '^ok ' "$WORK/tests.log" >&2; die "the C# tests failed ($WORK/tests.log)"; }
tail -n 1 "$WORK/tests.log"
for exe in "$WORK"/docs/*.exe; do
  (cd "$ROOT" && MONO_PATH="$WORK" mono "$exe" >"${exe%.exe}.out" 2>&1) || { cat "${exe%.exe}.out" >&2; die "$exe (from the docs) failed"; }
done
# The example of docs/dotnet.md issues the spec's factura: its number and the CDC up to the random security code.
grep -Eq '^001-001-0000001 0144444401700100100000012202503101[0-9]{10}$' "$WORK"/docs/*.out \
  || { cat "$WORK"/docs/*.out >&2; die "the docs' C# example printed an unexpected summary"; }
# README's example prints the DV of 80069563.
grep -qx 1 "$WORK"/docs/README-*.out || { cat "$WORK"/docs/README-*.out >&2; die "README's C# example did not print 1"; }
note "C# binding OK"
