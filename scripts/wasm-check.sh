#!/usr/bin/env bash
# The WebAssembly face end to end, on a fresh Debian machine too (idempotent): toolchain, drift of the TypeScript
# declarations generated from the Rust types, the three builds of the npm package (default, the light validate
# entry, and kude with the KuDE fonts), the link guard of the validate entry, node tests, tsc on the typings, the size budget, the browser demo in headless Chromium, and (unless
# KUATIA_WASM_BENCH=0) the validate+totals benchmark against native (scripts/wasm-bench.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PKG=bindings/node
TARGET_DIR=${CARGO_TARGET_DIR:-target}
BUDGET_GZ=$((400 * 1024)) # default package (wasm + JS glue), gzipped
# kuatia/validate (wasm + JS glue), gzipped: the measured 189 381 B of 2026-11-28 and a small margin. Issue 32 asked for 150 KB;
# what is left is validation's own JSON reading (serde's derived readers of the request), totals and decimal code
# (docs/plans/issue-32.md §7.7), and 150 KB needs a second, hand-written reader of the request, which the project
# does not write. The budget holds the line until that decision is taken.
BUDGET_VALIDATE_GZ=$((188 * 1024))
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"

say() { printf '\n--- %s\n' "$*"; }

say "toolchain"
rustup target add wasm32-unknown-unknown >/dev/null 2>&1 || rustup target list --installed | grep -x wasm32-unknown-unknown >/dev/null
# The JS glue comes from wasm-bindgen-cli-support, the library of wasm-bindgen-cli, which must be exactly the
# wasm-bindgen crate version in Cargo.lock (the two halves share an ABI). tools/codegen pins it (its own lockfile,
# --locked) and is built in the shared target directory: no `cargo install wasm-bindgen-cli`, a separate build of
# the CLI with an HTTP server and TLS for its test runner (rouille -> multipart, buf_redux: code a future Rust
# rejects), whose locked dependencies were not all on the registry either.
lock_version() { awk -v n="$1" '$0 == "name = \"" n "\"" {getline; gsub(/version = |"/, ""); print; exit}' "$2"; }
WB_VERSION=$(lock_version wasm-bindgen Cargo.lock)
for crate in wasm-bindgen-cli-support wasm-bindgen-shared; do
  v=$(lock_version "$crate" tools/codegen/Cargo.lock)
  if [ "$v" != "$WB_VERSION" ]; then
    echo "tools/codegen has $crate $v, Cargo.lock has wasm-bindgen $WB_VERSION: pin =$WB_VERSION in" \
      "tools/codegen/Cargo.toml (cargo update --manifest-path tools/codegen/Cargo.toml)" >&2
    exit 1
  fi
done
cargo build -q --manifest-path tools/codegen/Cargo.toml --target-dir "$TARGET_DIR" --locked --bin kuatia-wasm-bindgen
WASM_BINDGEN="$TARGET_DIR/debug/kuatia-wasm-bindgen"
command -v node >/dev/null && command -v npm >/dev/null || {
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm
}
(cd $PKG && npm ci --no-audit --no-fund --loglevel=error)
WASM_OPT=$PKG/node_modules/.bin/wasm-opt # npm "binaryen", pinned in package.json

say "TypeScript declarations generated from the Rust types (drift of wasm/src/types.generated.d.ts)"
GEN_TMP=$(mktemp)
cargo run -q -p kuatia-wasm --features ts --bin ts-types --locked -- "$GEN_TMP"
if ! cmp -s "$GEN_TMP" wasm/src/types.generated.d.ts; then
  diff -u wasm/src/types.generated.d.ts "$GEN_TMP" | head -n 60 >&2 || true
  rm -f "$GEN_TMP"
  echo "wasm/src/types.generated.d.ts is stale: run cargo run -p kuatia-wasm --features ts --bin ts-types" >&2
  exit 1
fi
rm -f "$GEN_TMP"
echo "types.generated.d.ts matches the Rust types"

build() { # build <name> <cargo feature args...>
  local name=$1
  shift
  cargo build -p kuatia-wasm --target wasm32-unknown-unknown --profile wasm-release --locked "$@"
  rm -rf "$PKG/dist/$name"
  "$WASM_BINDGEN" --target web --out-dir "$PKG/dist/$name" \
    "$TARGET_DIR/wasm32-unknown-unknown/wasm-release/kuatia_wasm.wasm"
  local wasm=$PKG/dist/$name/kuatia_wasm_bg.wasm
  # The module before wasm-opt keeps wasm-bindgen's demangled name section: the link guard reads it.
  cp "$wasm" "$NAMES_DIR/$name.wasm"
  if [ -x "$WASM_OPT" ]; then
    # --converge (repeat -Oz while it still shrinks) on the two budgeted builds: about 2 KB gzipped off the default
    # package and 1 KB off kuatia/validate; the kude build has no budget and takes longest.
    local converge=--converge
    [ "$name" = kude ] && converge=
    # The features rustc 1.95 enables by default for wasm32-unknown-unknown.
    # shellcheck disable=SC2086 # $converge is one flag or none
    "$WASM_OPT" -Oz $converge --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
      --enable-mutable-globals --enable-reference-types --enable-multivalue "$wasm" -o "$wasm.opt"
    mv "$wasm.opt" "$wasm"
  fi
}

say "the browser builds leave out the e-mail outbox and the archive (kuatia-service features email, archive: zip, flate2)"
# The C ABI's in-process service has both (ffi/Cargo.toml); the WebAssembly packages must not (their size budget).
for features in "" "--features kude"; do
  # shellcheck disable=SC2086 # $features is a list of arguments
  wasm_tree=$(cargo tree -p kuatia-wasm $features --target wasm32-unknown-unknown -e features --locked --prefix none)
  if grep -E '^(kuatia-service feature "(email|archive)"|zip v|flate2 v)' <<<"$wasm_tree"; then
    echo "the WebAssembly build (kuatia-wasm $features) links the features or crates above" >&2
    exit 1
  fi
done

say "build: default package (no KuDE), the validate entry and the kude package"
NAMES_DIR=$(mktemp -d)
trap 'rm -rf "$NAMES_DIR"' EXIT
build default
build validate --no-default-features --features validate
build kude --features kude

say "link guard: kuatia/validate links no XML writer, QR, signature, X.509, RSA, PDF or service code"
# Each name must occur in a full build's function names (so a renamed crate cannot make the guard pass silently)
# and in none of the validate build's.
for name in x509_parser 'rsa::' pdf_writer qrcode kuatia_service c14n 'xml::write'; do
  if ! grep -a -q -F -- "$name" "$NAMES_DIR/default.wasm" "$NAMES_DIR/kude.wasm"; then
    echo "link guard: '$name' names no function of the default or kude build: update the guard" >&2
    exit 1
  fi
  if grep -a -q -F -- "$name" "$NAMES_DIR/validate.wasm"; then
    echo "FAIL: the validate entry links '$name' (wasm/src: gate the export that reaches it with feature full)" >&2
    exit 1
  fi
done
# Its message tables have only the catalog groups validation emits (kuatia-core light-catalog, tools/codegen/catalog
# LIGHT_GROUPS): it must link no function of the modules that emit the others' rules.
emitters='kuatia_core::(sifen|kude|numbering|issue|lifecycle|sign|xml|qr)::([A-Za-z0-9_]+::)*[a-z0-9_]+::h[0-9a-f]{16}'
grep -a -q -E "$emitters" "$NAMES_DIR/default.wasm" || { echo "link guard: no function matches $emitters in the default build: update the guard" >&2; exit 1; }
if grep -a -o -E "$emitters" "$NAMES_DIR/validate.wasm" | head -n 5 | grep .; then
  echo "FAIL: the validate entry links the functions above, whose findings its catalogs (light-catalog) do not have" >&2
  exit 1
fi
# The light catalog's two lists (tools/codegen/catalog LIGHT_GROUPS, core/src/rule/mod.rs LIGHT) agree rule by rule.
cargo test -q -p kuatia-core --lib --features light-catalog --locked msg:: >/dev/null
# Data too: the DNIT city names (geo/data.rs CIUDADES_NOMBRES, ~31 KB gzipped) and the currencies' and countries'
# names (codes/xsd.rs *_TEXTOS) are for the XML, not for checking codes.
for text in 'ABASTO CUE' 'Afghani' 'Afganist'; do
  grep -a -q -F -- "$text" "$NAMES_DIR/default.wasm" || { echo "link guard: '$text' is not in the default build: update the guard" >&2; exit 1; }
  if grep -a -q -F -- "$text" "$NAMES_DIR/validate.wasm"; then
    echo "FAIL: the validate entry links the data '$text' (the city names)" >&2
    exit 1
  fi
done
echo "validate links none of the guarded names"

# scripts/packages-check.sh needs only the package's files (npm pack) when the full check has not run.
if [ -n "${KUATIA_WASM_BUILD_ONLY:-}" ]; then
  echo "wasm-check: built $PKG/dist (KUATIA_WASM_BUILD_ONLY)"
  exit 0
fi

say "size"
size_of() { # prints raw and gzipped bytes of the wasm + JS glue of one build
  local dir=$PKG/dist/$1
  local raw gz
  raw=$(cat "$dir/kuatia_wasm_bg.wasm" "$dir/kuatia_wasm.js" | wc -c)
  gz=$(($(gzip -9c "$dir/kuatia_wasm_bg.wasm" | wc -c) + $(gzip -9c "$dir/kuatia_wasm.js" | wc -c)))
  echo "$raw $gz"
}
read -r RAW GZ < <(size_of default)
read -r VRAW VGZ < <(size_of validate)
read -r KRAW KGZ < <(size_of kude)
printf 'default:  %d bytes raw, %d bytes gzipped (budget %d)\n' "$RAW" "$GZ" "$BUDGET_GZ"
printf 'validate: %d bytes raw, %d bytes gzipped (budget %d)\n' "$VRAW" "$VGZ" "$BUDGET_VALIDATE_GZ"
printf 'kude:     %d bytes raw, %d bytes gzipped (no budget: opt-in, embeds two fonts)\n' "$KRAW" "$KGZ"
# A budget overrun fails the check at its end, after the tests, so one run tells everything that is wrong.
OVER=()
if [ "$GZ" -gt "$BUDGET_GZ" ]; then
  OVER+=("the default package is over its size budget ($GZ > $BUDGET_GZ bytes gzipped)")
fi
if [ "$VGZ" -gt "$BUDGET_VALIDATE_GZ" ]; then
  OVER+=("kuatia/validate is over its size budget ($VGZ > $BUDGET_VALIDATE_GZ bytes gzipped)")
fi

say "a signed document from the native CLI (for verify)"
mkdir -p $PKG/test/generated
OUT=$(mktemp -d)
# The kuatia CLI (debug): scripts/test.sh has already built the whole workspace the way its tests do
# (KUATIA_DEBUG_BUILD=workspace; `-p kuatia-cli` alone would compile 91 crates again with other features).
if [ "${KUATIA_DEBUG_BUILD:-}" = workspace ]; then cargo test -q --workspace --no-run --locked; else cargo build -q -p kuatia-cli --locked; fi
"$TARGET_DIR/debug/kuatia" issue examples/factura.json --out "$OUT" --at 2025-03-10T10:11:00 >/dev/null
cp "$OUT"/*.xml $PKG/test/generated/signed.xml
rm -rf "$OUT"

say "node tests (conformance cases, API, browser demo in headless Chromium)"
if ! command -v chromium >/dev/null; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium
fi
(cd $PKG && node --test test/*.test.mjs)

say "tsc --noEmit (typings, usage, every conformance request and answer typed)"
(cd $PKG && node test/gen-typed.mjs && node_modules/.bin/tsc --noEmit -p .)

# The validate+totals benchmark (WebAssembly in Node vs native) is scripts/wasm-bench.sh: a benchmark, reported and
# not enforced, whose two optimised criterion builds took minutes of every CI run. scripts/test.sh skips it
# (KUATIA_WASM_BENCH=0; scripts/bench.sh runs it); run alone, this check still ends with it.
if [ "${KUATIA_WASM_BENCH:-1}" != 0 ]; then
  bash scripts/wasm-bench.sh
fi
if [ ${#OVER[@]} -gt 0 ]; then
  printf 'FAIL: %s\n' "${OVER[@]}" >&2
  exit 1
fi
echo "wasm-check: all passed"
