#!/usr/bin/env bash
# The Java binding check: builds libkuatia (crate kuatia-ffi) unless KUATIA_LIB_DIR points at an existing build,
# then runs the JUnit 5 tests of bindings/java with Maven against it (conformance cases, every wrapper, signers,
# threads). Idempotent; needs cargo, a JDK >= 17 and Maven 3.8+. The first run downloads the pinned dependencies
# and plugins from Maven Central into ~/.m2; later runs work offline.
#
#   KUATIA_LIB_DIR=/path/to/dir   use the libkuatia.so there (no cargo build)
#   KUATIA_PROFILE=release        build and test the release library (default: debug, the build ffi-check.sh and
#                                 `cargo test` already share, so this check adds no second compile of the core)
set -euo pipefail
cd "$(dirname "$0")/.."

note() { printf -- '--> %s\n' "$*"; }

for tool in java mvn; do
  command -v "$tool" >/dev/null || { echo "java-check: $tool is not installed (need JDK >= 17 and Maven)" >&2; exit 1; }
done
JAVA_MAJOR="$(java -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')"
if [ "${JAVA_MAJOR%%.*}" -lt 17 ] 2>/dev/null; then
  echo "java-check: Java $JAVA_MAJOR found, the binding needs 17 or later" >&2
  exit 1
fi

if [ -n "${KUATIA_LIB_DIR:-}" ]; then
  LIB_DIR="$(cd "$KUATIA_LIB_DIR" && pwd)"
  note "using the existing libkuatia in $LIB_DIR"
else
  PROFILE="${KUATIA_PROFILE:-debug}"
  TARGET_DIR="$(cargo metadata --format-version 1 --no-deps \
    | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')"
  LIB_DIR="$TARGET_DIR/$PROFILE"
  note "building libkuatia ($PROFILE)"
  if [ "$PROFILE" = release ]; then
    cargo build -p kuatia-ffi --release --locked
  else
    cargo build -p kuatia-ffi --locked
  fi
fi
[ -f "$LIB_DIR/libkuatia.so" ] || [ -f "$LIB_DIR/libkuatia.dylib" ] || [ -f "$LIB_DIR/kuatia.dll" ] \
  || { echo "java-check: no libkuatia in $LIB_DIR" >&2; exit 1; }

note "Java tests (mvn test in bindings/java, against $LIB_DIR)"
cd bindings/java
# -Djna.library.path wins over every default, so the tests use exactly this build.
# Debian's Maven 3.8 prints bare colour resets even with -B; sed drops them (pipefail keeps mvn's status).
KUATIA_LIB_DIR="$LIB_DIR" mvn -q -B -Dstyle.color=never -Djna.library.path="$LIB_DIR" test 2>&1 \
  | sed -u 's/\x1b\[0m//g'
# One closing line, as the Rust step prints (mvn -q is silent on success).
python3 - target/surefire-reports <<'PY'
import glob, sys, xml.etree.ElementTree as ET
n = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
for f in glob.glob(sys.argv[1] + "/TEST-*.xml"):
    root = ET.parse(f).getroot()
    for k in n:
        n[k] += int(root.get(k, 0))
print(f"java tests: {n['tests'] - n['failures'] - n['errors'] - n['skipped']} passed, "
      f"{n['failures'] + n['errors']} failed, {n['skipped']} skipped")
PY
note "Java binding OK"
