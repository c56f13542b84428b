#!/usr/bin/env bash
# The Windows DLLs, cross-built here with Debian's mingw-w64 (docs/windows.md):
#
#   1. kuatia-ffi for x86_64-pc-windows-gnu and i686-pc-windows-gnu (debug profile: this is the test build; the
#      release zips come from the same commands with --release): kuatia.dll, the import library from rustc
#      (libkuatia.dll.a), an MSVC-style kuatia.lib from dlltool, kuatia.def and the header, laid out in
#      target/windows/<arch>/dist.
#   2. kuatia.def is generated from include/kuatia.abi.json (the C ABI description) and must list exactly the
#      functions in the DLL's export table (objdump -p); the i686 DLL must export them undecorated (cdecl), and its
#      stdcall entry points (kuatia_sc_*, for Visual Basic 6 / Visual FoxPro) must be exported undecorated too. The
#      DLLs import only system DLLs, and aws-lc is built without its jitter entropy source, as on Linux.
#   3. The C conformance program (tests/c/test_kuatia.c, the vectors of tests/fixtures/cases) and the service
#      program (tests/c/test_service.c) compiled with mingw-w64 against the x64 DLL and run under Wine; the
#      conformance transcript (--answers: CDC, number, SHA-256 of the signed XML or the findings of every case, and
#      the count of checks) must be byte-identical to the same program's on Linux against libkuatia.so. The stdcall
#      caller (tests/windows/test_stdcall.c, every entry point declared __stdcall) runs under Wine too.
#   4. The i686 programs run under Wine only where wine32 (i386) is installed: Debian's wine32 needs the i386
#      architecture added to dpkg, which CI does not do (docs/windows.md, "32-bit"); without it they are linked
#      (every import resolved against the x86 import library) and not run, and the script says so.
#
# Wine runs in a prefix under target/windows/wine (created once by wineboot, ~10 s and ~700 MB; kept for the next
# runs). Rust's standard library imports bcryptprimitives.dll!ProcessPrng, which Wine 8 lacks: a test-only
# bcryptprimitives.dll (tests/windows/bcryptprimitives.c) sits beside the test programs. It is never shipped.
#
# Needs: cargo with rustup, mingw-w64 (gcc-mingw-w64-x86-64-posix, gcc-mingw-w64-i686-posix), nasm (aws-lc-sys
# assembles with it for x86_64-pc-windows-gnu), wine (wine64), gcc; .ci/run installs them.
#
#   KUATIA_WINDOWS_PROFILE=release   build the release DLLs (what you ship) instead of the debug ones
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
PROFILE="${KUATIA_WINDOWS_PROFILE:-debug}"
case "$PROFILE" in
  debug) PROFILE_FLAG=() ;;
  release) PROFILE_FLAG=(--release) ;;
  *) echo "KUATIA_WINDOWS_PROFILE must be debug or release" >&2; exit 2 ;;
esac
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"
TARGET_DIR="$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')"
OUT="$TARGET_DIR/windows"
mkdir -p "$OUT"
T0=$SECONDS
note() { printf -- '--> %s (%d s)\n' "$*" $((SECONDS - T0)); }
die() { echo "windows-check: $*" >&2; exit 1; }

for tool in x86_64-w64-mingw32-gcc i686-w64-mingw32-gcc x86_64-w64-mingw32-dlltool i686-w64-mingw32-dlltool \
  x86_64-w64-mingw32-objdump i686-w64-mingw32-objdump x86_64-w64-mingw32-nm i686-w64-mingw32-nm \
  x86_64-w64-mingw32-strip i686-w64-mingw32-strip nasm wine wineboot wineserver gcc; do
  command -v "$tool" >/dev/null || die "$tool not installed (Debian: gcc-mingw-w64-x86-64-posix gcc-mingw-w64-i686-posix nasm wine wine64; .ci/run installs them)"
done
# The Rust standard libraries of both targets (idempotent, like .ci/run's wasm32).
rustup target add x86_64-pc-windows-gnu i686-pc-windows-gnu >/dev/null 2>&1 \
  || die "rustup target add x86_64-pc-windows-gnu i686-pc-windows-gnu failed"

# Wine: its own prefix, no debug chatter, no Mono/Gecko install prompts (not needed by console programs).
export WINEPREFIX="$OUT/wine" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
wine_ready=0
wine_start() {
  [ "$wine_ready" = 1 ] && return 0
  if [ ! -f "$WINEPREFIX/system.reg" ]; then
    note "creating the Wine prefix $WINEPREFIX (once)"
    timeout 300 wineboot -i >"$OUT/wineboot.log" 2>&1 || { cat "$OUT/wineboot.log" >&2; die "wineboot failed"; }
  fi
  wine_ready=1
}
# wineserver outlives the last program by a few seconds: wait for it, so the script leaves nothing running.
trap '[ "$wine_ready" = 1 ] && wineserver -w 2>/dev/null || true' EXIT
# Runs a Windows program under Wine; stdout (CRLF turned into LF) to $1, stderr to $1.err.
wine_run() {
  local out="$1" rc=0
  shift
  wine_start
  # A hang guard only (each program takes seconds): a stuck Wine fails the check instead of the CI run's clock.
  timeout 600 wine "$@" >"$out.raw" 2>"$out.err" || rc=$?
  if [ "$rc" -ne 0 ]; then
    tr -d '\r' <"$out.raw" | tail -n 20 >&2
    grep -v -e 'wine32 is missing' -e 'multiarch needs' -e 'dpkg --add-architecture' -e 'apt-get install wine32' \
      "$out.err" | tail -n 40 >&2 || true
    die "under Wine: $* exited with $rc (WINEDEBUG=err+module names a DLL that does not load)"
  fi
  tr -d '\r' <"$out.raw" >"$out"
}

# The names a .def exports (x86 stdcall decorations cut: the DLL exports kuatia_sc_ruc_dv for kuatia_sc_ruc_dv@16).
def_names() { sed -n 's/^    \([^@]*\).*/\1/p' "$1" | sort; }

wine32=0
dpkg-query -W -f='${Status}' wine32:i386 2>/dev/null | grep -q "install ok installed" && wine32=1

python3 tests/c/gen_vectors.py tests/fixtures/cases "$OUT/vectors.h"
CFLAGS=(-std=c11 -O1 -Wall -Wextra -Werror -Iinclude -Itests/c -I"$OUT")

for arch in x64 x86; do
  case "$arch" in
    x64) triple=x86_64-pc-windows-gnu cc=x86_64-w64-mingw32 ;;
    x86) triple=i686-pc-windows-gnu cc=i686-w64-mingw32 ;;
  esac
  note "building kuatia.dll for $triple"
  cargo build -q -p kuatia-ffi --lib --locked --target "$triple" "${PROFILE_FLAG[@]}"
  built="$TARGET_DIR/$triple/$PROFILE"
  dist="$OUT/$arch/dist" test="$OUT/$arch/test"
  rm -rf "$dist" "$test" "$OUT/$arch/answers.txt"
  mkdir -p "$dist" "$test"
  # The release DLL is shipped stripped (12.9 MB to 8.6 MB on x64); the debug one keeps its line tables.
  if [ "$PROFILE" = release ]; then
    "$cc-strip" -o "$dist/kuatia.dll" "$built/kuatia.dll"
  else
    ln -f "$built/kuatia.dll" "$dist/kuatia.dll"
  fi
  cp "$built/libkuatia.dll.a" include/kuatia.h "$dist/"

  # 2. kuatia.def from the ABI description plus the stdcall entry points as the compiler named them (in the static
  # library's symbols: kuatia_sc_ruc_dv@16 on x86), checked against the DLL's export table.
  "$cc-nm" -g --defined-only "$built/libkuatia.a" >"$OUT/$arch/nm.txt" 2>/dev/null || true
  sed -n 's/^[0-9a-f]* T _\{0,1\}\(kuatia_sc_[a-z0-9_]*\(@[0-9]*\)\{0,1\}\)$/\1/p' "$OUT/$arch/nm.txt" \
    | sort -u >"$OUT/$arch/stdcall.txt"
  # aws-lc without its CPU-jitter entropy source here too (.cargo/config.toml; scripts/entropy-check.sh checks the
  # Linux builds); aws-lc's RAND_bytes is the positive control.
  grep -q 'RAND_bytes$' "$OUT/$arch/nm.txt" || die "$arch: no aws-lc RAND_bytes in libkuatia.a"
  if grep -q 'jent_' "$OUT/$arch/nm.txt"; then
    die "$arch: libkuatia.a carries aws-lc's jitter entropy (jent_*): AWS_LC_SYS_NO_JITTER_ENTROPY was not applied"
  fi
  python3 tools/windows_def.py include/kuatia.abi.json "$arch" "$OUT/$arch/stdcall.txt" >"$dist/kuatia.def"
  "$cc-objdump" -p "$dist/kuatia.dll" \
    | sed -n '/\[Ordinal\/Name Pointer\] Table/,/^$/s/^\t\[ *[0-9]*\] //p' | sort >"$OUT/$arch/exports.txt"
  def_names "$dist/kuatia.def" >"$OUT/$arch/def.txt"
  if ! diff -u "$OUT/$arch/def.txt" "$OUT/$arch/exports.txt" >"$OUT/$arch/exports.diff"; then
    cat "$OUT/$arch/exports.diff" >&2
    die "$arch: kuatia.dll's exports differ from kuatia.def (generated from include/kuatia.abi.json)"
  fi
  # Only system DLLs: nothing of MinGW's runtime (libgcc_s, libwinpthread) to ship beside kuatia.dll.
  "$cc-objdump" -p "$dist/kuatia.dll" | sed -n 's/^\tDLL Name: //p' | sort -f >"$OUT/$arch/imports.txt"
  if grep -Eiv '^(kernel32|ntdll|msvcrt|userenv|ws2_32|bcrypt|bcryptprimitives|advapi32|api-ms-win-[a-z0-9-]+)\.dll$' \
    "$OUT/$arch/imports.txt"; then
    die "$arch: kuatia.dll imports the DLLs above, which are not part of Windows (docs/windows.md lists what it needs)"
  fi
  # The comparison must fail for a description that lacks a function the DLL exports.
  python3 -c 'import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
d["functions"] = [f for f in d["functions"] if f["name"] != "kuatia_ruc_dv"]
json.dump(d, open(sys.argv[2], "w", encoding="utf-8"))' include/kuatia.abi.json "$OUT/$arch/abi-canary.json"
  python3 tools/windows_def.py "$OUT/$arch/abi-canary.json" "$arch" "$OUT/$arch/stdcall.txt" >"$OUT/$arch/canary.def"
  if def_names "$OUT/$arch/canary.def" | cmp -s - "$OUT/$arch/exports.txt"; then
    die "$arch: the .def check passed a description without kuatia_ruc_dv"
  fi
  echo "$arch: kuatia.dll exports the $(wc -l <"$OUT/$arch/exports.txt") functions of kuatia.def," \
    "$(wc -l <"$OUT/$arch/stdcall.txt") of them stdcall entry points"
  # The MSVC-style import library (link.exe, Delphi's implib users) from the same .def; -k maps the decorated
  # stdcall names a caller asks for (_kuatia_sc_ruc_dv@16) to the undecorated exports. On x86 it also replaces
  # rustc's libkuatia.dll.a, which names the stdcall functions without their argument bytes (a __stdcall caller
  # would not link).
  "$cc-dlltool" -k --input-def "$dist/kuatia.def" --dllname kuatia.dll --output-lib "$dist/kuatia.lib"
  [ "$arch" = x64 ] || cp "$dist/kuatia.lib" "$dist/libkuatia.dll.a"
  cp include/kuatia_stdcall.h "$dist/"

  # 3. The test programs, linked statically against the C runtime (no libwinpthread/libgcc DLLs to carry).
  WCFLAGS=("${CFLAGS[@]}" -D__USE_MINGW_ANSI_STDIO=1)
  "$cc-gcc" "${WCFLAGS[@]}" tests/c/test_kuatia.c -o "$test/test_kuatia.exe" -L"$dist" -l:libkuatia.dll.a \
    -static -lpthread
  "$cc-gcc" "${WCFLAGS[@]}" tests/c/test_service.c -o "$test/test_service.exe" -L"$dist" -l:libkuatia.dll.a \
    -static -lbcrypt
  # The same conformance program linked with the MSVC-style import library: both import libraries resolve every
  # function.
  "$cc-gcc" "${WCFLAGS[@]}" tests/c/test_kuatia.c -o "$test/test_kuatia_lib.exe" "$dist/kuatia.lib" -static -lpthread
  # The stdcall caller, against the import library from the .def (a drifted declaration does not link on x86).
  "$cc-gcc" "${WCFLAGS[@]}" -Itests/windows tests/windows/test_stdcall.c -o "$test/test_stdcall.exe" \
    "$dist/kuatia.lib" -static
  "$cc-gcc" -O2 -Wall -Wextra -Werror -shared -s tests/windows/bcryptprimitives.c -o "$test/bcryptprimitives.dll" \
    -ladvapi32 -Wl,--kill-at
  ln -f "$dist/kuatia.dll" "$test/kuatia.dll"
  # The C blocks of docs/windows.md, as a user builds them with MinGW.
  rm -rf "$OUT/doc-c"
  python3 tools/doc_blocks.py extract c "$OUT/doc-c" >/dev/null
  for src in "$OUT/doc-c"/windows-*.c; do
    [ -f "$src" ] || die "no C block in docs/windows.md"
    "$cc-gcc" -std=c11 -Wall -Wextra -Werror -Iinclude "$src" -o "$test/$(basename "${src%.c}").exe" -L"$dist" \
      -l:libkuatia.dll.a -lbcrypt
  done

  if [ "$arch" = x86 ] && [ "$wine32" = 0 ]; then
    echo "x86: wine32 (i386) is not installed: the x86 programs are built and linked, not run (docs/windows.md)"
    continue
  fi
  note "$arch: C conformance under Wine"
  wine_run "$OUT/$arch/answers.txt" "$test/test_kuatia.exe" "Z:$ROOT" --answers
  tail -n 1 "$OUT/$arch/answers.txt"
  wine_run "$OUT/$arch/answers-lib.txt" "$test/test_kuatia_lib.exe" "Z:$ROOT" --quick
  echo "linked with kuatia.lib: $(tail -n 1 "$OUT/$arch/answers-lib.txt")"
  wine_run "$OUT/$arch/service.txt" "$test/test_service.exe" "Z:$ROOT"
  tail -n 1 "$OUT/$arch/service.txt"
  note "$arch: stdcall entry points under Wine"
  wine_run "$OUT/$arch/stdcall.out" "$test/test_stdcall.exe" "Z:$ROOT"
  cat "$OUT/$arch/stdcall.out"
  note "$arch: the C example of docs/windows.md under Wine"
  for exe in "$test"/windows-*.exe; do
    wine_run "$OUT/$arch/$(basename "${exe%.exe}").out" "$exe"
    grep -Eq '^\{"cdc":"0144444401700100100000012202503101[0-9]{10}","numero":"001-001-0000001"' \
      "$OUT/$arch/$(basename "${exe%.exe}").out" || die "$exe printed $(cat "$OUT/$arch/$(basename "${exe%.exe}").out")"
  done
done

# The Linux transcript of the same program (built without the shell step, as on Windows) against libkuatia.so.
note "the same conformance program on Linux"
cargo build -q -p kuatia-ffi --lib --locked
gcc "${CFLAGS[@]}" -DKUATIA_TEST_NO_SHELL tests/c/test_kuatia.c -o "$OUT/test_kuatia_linux" -L"$TARGET_DIR/debug" \
  -lkuatia -Wl,-rpath,"$TARGET_DIR/debug" -lpthread
"$OUT/test_kuatia_linux" "$ROOT" --answers >"$OUT/linux-answers.txt"
for arch in x64 x86; do
  [ -f "$OUT/$arch/answers.txt" ] || continue
  if ! diff -u "$OUT/linux-answers.txt" "$OUT/$arch/answers.txt" >"$OUT/$arch/answers.diff"; then
    head -n 60 "$OUT/$arch/answers.diff" >&2
    die "$arch under Wine answered differently from Linux"
  fi
  echo "$arch under Wine: the same $(wc -l <"$OUT/linux-answers.txt") lines as on Linux"
done
note "Windows OK"
