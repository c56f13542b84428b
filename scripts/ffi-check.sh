#!/usr/bin/env bash
# The C ABI check: builds libkuatia, fails when include/kuatia.h drifts from what the pinned cbindgen generates,
# runs the C tests (tests/c: the conformance cases and the adversarial table) under AddressSanitizer +
# UndefinedBehaviorSanitizer and the conformance tests once under valgrind, writes
# kuatia.pc and compiles and runs the C examples of docs/ with it. Idempotent; needs only cargo, gcc, valgrind,
# python3 (and installs the pinned cbindgen with --locked when missing).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
CBINDGEN_VERSION="0.29.4"
PROFILE_DIR="debug"
TARGET_DIR="$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')"
LIB_DIR="$TARGET_DIR/$PROFILE_DIR"
WORK="$TARGET_DIR/ffi-check"
mkdir -p "$WORK"

note() { printf -- '--> %s\n' "$*"; }

# 1. Pinned cbindgen (skipped when the installed one is that version).
if [ "$(cbindgen --version 2>/dev/null || true)" != "cbindgen $CBINDGEN_VERSION" ]; then
  note "installing cbindgen $CBINDGEN_VERSION"
  cargo install cbindgen --version "$CBINDGEN_VERSION" --locked
fi

# 2. The library (cdylib + staticlib); the native libraries a static link needs are read from rustc.
note "building libkuatia"
LIBS_PRIVATE="$(cargo rustc -p kuatia-ffi --lib --locked -- --print native-static-libs 2>&1 \
  | tee "$WORK/build.log" | sed -n 's/^note: native-static-libs: //p' | tail -n 1)"
if [ ! -f "$LIB_DIR/libkuatia.so" ] || [ ! -f "$LIB_DIR/libkuatia.a" ]; then
  cat "$WORK/build.log" >&2
  echo "libkuatia was not built in $LIB_DIR" >&2
  exit 1
fi

# 3. Header drift.
note "header drift (cbindgen $CBINDGEN_VERSION)"
(cd ffi && cbindgen --config cbindgen.toml --output "$WORK/kuatia.h" 2>"$WORK/cbindgen.log") \
  || { cat "$WORK/cbindgen.log" >&2; exit 1; }
if ! cmp -s "$WORK/kuatia.h" include/kuatia.h; then
  diff -u include/kuatia.h "$WORK/kuatia.h" | head -n 60 >&2 || true
  echo "include/kuatia.h is stale: run (cd ffi && cbindgen --config cbindgen.toml --output ../include/kuatia.h)" >&2
  exit 1
fi

# 4. C tests under ASAN/UBSAN, against the shared library.
note "C tests (gcc -Wall -Wextra -Werror -fsanitize=address,undefined)"
python3 tests/c/gen_vectors.py tests/fixtures/cases "$WORK/vectors.h"
CFLAGS=(-std=c11 -g -O1 -Wall -Wextra -Werror -Iinclude -Itests/c -I"$WORK")
LINK=(-L"$LIB_DIR" -lkuatia -Wl,-rpath,"$LIB_DIR" -lpthread)
gcc "${CFLAGS[@]}" -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all \
  tests/c/test_kuatia.c -o "$WORK/test_kuatia_asan" "${LINK[@]}"
# Rust's allocator and aws-lc are not instrumented; leak checking stays on (LeakSanitizer) for the C side.
ASAN_OPTIONS="detect_leaks=1:abort_on_error=1" UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
  "$WORK/test_kuatia_asan" "$ROOT"

# The adversarial table (tests/adversarial) through the C ABI, under the same sanitizers (not valgrind: 100 MB
# inputs; ~5 s).
note "adversarial table through the C ABI (ASAN/UBSAN)"
python3 tests/c/gen_adversarial.py tests/adversarial "$WORK/adversarial.h"
gcc "${CFLAGS[@]}" -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all \
  tests/c/test_adversarial.c -o "$WORK/test_adversarial_asan" "${LINK[@]}"
ASAN_OPTIONS="detect_leaks=1:abort_on_error=1" UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
  "$WORK/test_adversarial_asan" "$ROOT"

# 5. The same tests once under valgrind (no sanitizers), linked statically so every allocation is seen.
note "C tests under valgrind (static link)"
gcc "${CFLAGS[@]}" tests/c/test_kuatia.c -o "$WORK/test_kuatia_static" "$LIB_DIR/libkuatia.a" -lpthread $LIBS_PRIVATE
valgrind --quiet --leak-check=full --show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect \
  --error-exitcode=1 "$WORK/test_kuatia_static" "$ROOT" --quick

# 6. kuatia.pc, and the docs' C examples compiled with it.
note "pkg-config file and the docs' C examples"
mkdir -p "$LIB_DIR/pkgconfig"
VERSION="$(sed -n 's/^#define KUATIA_VERSION "\(.*\)"$/\1/p' include/kuatia.h)"
sed -e "s|@PREFIX@|$ROOT|" -e "s|@LIBDIR@|$LIB_DIR|" -e "s|@INCLUDEDIR@|$ROOT/include|" \
  -e "s|@VERSION@|$VERSION|" -e "s|@LIBS_PRIVATE@|$LIBS_PRIVATE|" ffi/kuatia.pc.in >"$LIB_DIR/pkgconfig/kuatia.pc"
# Every C block of the documentation (tools/doc_blocks.py); the one that issues a factura is checked for its output.
rm -rf "$WORK/doc-c"
python3 tools/doc_blocks.py extract c "$WORK/doc-c" >/dev/null
grep -l kuatia_invoice_issue "$WORK/doc-c"/*.c | head -n 1 | xargs -I{} cp {} "$WORK/readme_example.c"
[ -s "$WORK/readme_example.c" ] || { echo "no C example calling kuatia_invoice_issue in the docs" >&2; exit 1; }
if command -v pkg-config >/dev/null; then
  read -r -a PC <<<"$(PKG_CONFIG_PATH="$LIB_DIR/pkgconfig" pkg-config --cflags --libs kuatia)"
else
  PC=(-I"$ROOT/include" -L"$LIB_DIR" -lkuatia)
fi
gcc -std=c11 -Wall -Wextra -Werror -fsanitize=address,undefined "$WORK/readme_example.c" -o "$WORK/readme_example" \
  "${PC[@]}" -Wl,-rpath,"$LIB_DIR"
"$WORK/readme_example" >"$WORK/readme_example.out"
for src in "$WORK/doc-c"/*.c; do
  gcc -std=c11 -Wall -Wextra -Werror -fsanitize=address,undefined "$src" -o "${src%.c}" "${PC[@]}" -Wl,-rpath,"$LIB_DIR"
  "${src%.c}" >/dev/null || { echo "$src (from the docs) failed" >&2; exit 1; }
done
# The CDC up to the random security code is fixed by the request, the sandbox profile, the number and the date.
grep -Eq '^\{"cdc":"0144444401700100100000012202503101[0-9]{10}","numero":"001-001-0000001"' "$WORK/readme_example.out" \
  || { cat "$WORK/readme_example.out" >&2; echo "the docs' C example printed an unexpected summary" >&2; exit 1; }
note "C ABI OK"
