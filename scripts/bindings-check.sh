#!/usr/bin/env bash
# The Python, Go and PHP binding check: builds libkuatia (crate kuatia-ffi, debug: the build ffi-check.sh and
# `cargo test` share), runs the pytest suite of bindings/python, `go vet` + `go test` (race detector on, and once
# linked statically) of bindings/go and phpunit on bindings/php against it, then the parity check
# (tools/binding_parity.py: every function of the C ABI description, include/kuatia.abi.json, is wrapped by every
# C-ABI binding) and tests that the parity check does fail on a gap.
# Idempotent; needs cargo, gcc, python3 (with venv when pytest is missing), Go >= 1.22, and php (>= 8.1, with FFI)
# with phpunit (Debian: php8.2-cli, phpunit; .ci/run installs them). No Go modules or PHP packages are downloaded
# (neither package has dependencies); pytest is installed pinned into target/ only when missing.
#
#   KUATIA_PROFILE=release   build and test the release library instead
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
PYTEST_VERSION="8.3.5"

note() { printf -- '--> %s\n' "$*"; }
die() { echo "bindings-check: $*" >&2; exit 1; }

PROFILE="${KUATIA_PROFILE:-debug}"
TARGET_DIR="$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')"
LIB_DIR="$TARGET_DIR/$PROFILE"
WORK="$TARGET_DIR/bindings-check"
mkdir -p "$WORK"

note "building libkuatia ($PROFILE)"
if [ "$PROFILE" = release ]; then
  cargo build -p kuatia-ffi --release --locked
else
  cargo build -p kuatia-ffi --locked
fi
[ -f "$LIB_DIR/libkuatia.so" ] && [ -f "$LIB_DIR/libkuatia.a" ] || die "libkuatia.so/.a not found in $LIB_DIR"

# --- Python ---------------------------------------------------------------------------------------------------
PY=python3
if ! python3 -m pytest --version >/dev/null 2>&1; then
  VENV="$WORK/venv"
  if ! "$VENV/bin/python" -m pytest --version >/dev/null 2>&1; then
    note "installing pytest $PYTEST_VERSION into $VENV"
    python3 -m venv "$VENV" || die "python3 -m venv failed (install python3-venv)"
    "$VENV/bin/python" -m pip install --quiet "pytest==$PYTEST_VERSION"
  fi
  PY="$VENV/bin/python"
fi
note "Python binding: pytest ($("$PY" -m pytest --version 2>&1 | head -n 1))"
set +e
KUATIA_LIB="$LIB_DIR/libkuatia.so" PYTHONDONTWRITEBYTECODE=1 \
  "$PY" -m pytest -q -p no:cacheprovider bindings/python
rc=$?
set -e
# Exit code 5 means "no tests collected": a broken glob or import path must not pass as success.
[ "$rc" -eq 5 ] && die "pytest collected no tests in bindings/python"
[ "$rc" -eq 0 ] || die "pytest failed (exit code $rc)"

# --- Go -------------------------------------------------------------------------------------------------------
command -v go >/dev/null || die "go is not installed (need Go >= 1.22 with cgo)"
note "Go binding: go vet, go test -race, static link ($(go version))"
(
  cd bindings/go
  export CGO_ENABLED=1 GOTOOLCHAIN=local GOFLAGS=-mod=mod GOPROXY=off
  # The package finds libkuatia with pkg-config (docs/go.md); here a kuatia.pc for this build of the checkout
  # (scripts/packages-check.sh tests the installed one). Libs.private: what `--print native-static-libs` lists.
  mkdir -p "$WORK/pkgconfig"
  VERSION="$(sed -n 's/^#define KUATIA_VERSION "\(.*\)"$/\1/p' "$ROOT/include/kuatia.h")"
  sed -e "s|@PREFIX@|$ROOT|" -e "s|@LIBDIR@|$LIB_DIR|" -e "s|@INCLUDEDIR@|$ROOT/include|" -e "s|@VERSION@|$VERSION|" \
    -e "s|@LIBS_PRIVATE@|-lgcc_s -lutil -lrt -lpthread -lm -ldl -lc|" "$ROOT/ffi/kuatia.pc.in" >"$WORK/pkgconfig/kuatia.pc"
  export PKG_CONFIG_PATH="$WORK/pkgconfig"
  export CGO_LDFLAGS="-Wl,-rpath,$LIB_DIR"
  go vet ./...
  go test -race -count=1 ./...
  go test -count=1 -tags kuatia_static -run 'TestConformanceCases|TestBadP12' ./...
  # The static test binary must not need libkuatia.so at run time.
  go test -c -tags kuatia_static -o "$WORK/kuatia_static.test" . >/dev/null
  if ldd "$WORK/kuatia_static.test" | grep libkuatia >/dev/null; then
    die "the kuatia_static build still links libkuatia.so"
  fi
)

# --- PHP ------------------------------------------------------------------------------------------------------
command -v php >/dev/null || die "php is not installed (Debian: php8.2-cli)"
command -v phpunit >/dev/null || die "phpunit is not installed (Debian: phpunit)"
# Asked of PHP itself: `php -m | grep -q` under pipefail failed at random (grep stops at the match, php gets SIGPIPE).
php -r 'exit(extension_loaded("FFI") ? 0 : 1);' || die "the PHP FFI extension is not loaded (php -m)"
note "PHP binding: phpunit ($(phpunit --version | grep -o 'PHPUnit [0-9.]*'), $(php -r 'echo "PHP ", PHP_VERSION;'))"
rm -f "$WORK/php-junit.xml"
KUATIA_LIB="$LIB_DIR/libkuatia.so" phpunit -c bindings/php/phpunit.xml.dist --log-junit "$WORK/php-junit.xml" \
  || die "phpunit failed"
# A broken directory or data provider must not pass as success: count what ran.
python3 - "$WORK/php-junit.xml" <<'PY' || die "phpunit ran too few tests"
import sys, xml.etree.ElementTree as ET
suite = ET.parse(sys.argv[1]).getroot().find("testsuite")
tests, skipped = int(suite.get("tests")), int(suite.get("skipped", 0))
print(f"phpunit: {tests} tests, {suite.get('assertions')} assertions, {skipped} skipped")
sys.exit(0 if tests >= 150 and skipped == 0 else 1)
PY

# --- Parity ---------------------------------------------------------------------------------------------------
note "binding parity"
python3 tools/binding_parity.py
# The check must notice a function no binding wraps.
sed 's/^void kuatia_signer_free(struct kuatia_signer \*signer);$/&\nbool kuatia_parity_canary(const uint8_t *p,\n                           size_t n);/' \
  include/kuatia.h >"$WORK/canary.h"
grep -q kuatia_parity_canary "$WORK/canary.h" || die "could not plant the parity canary"
if python3 tools/binding_parity.py --root "$ROOT" --header "$WORK/canary.h" >"$WORK/canary.log" 2>&1; then
  cat "$WORK/canary.log" >&2
  die "binding_parity.py passed a header with an unwrapped function"
fi
for b in python go java php dotnet; do
  grep -q "$b: does not wrap kuatia_parity_canary" "$WORK/canary.log" || { cat "$WORK/canary.log" >&2; die "canary ($b)"; }
done
# The native declarations themselves (ctypes, JNA, PHP's FFI::cdef, C#) are generated from include/kuatia.abi.json
# by tools/abigen.py; scripts/ffi-check.sh fails when they drift from the header, and tests that it does.
note "Python + Go + PHP bindings OK"
