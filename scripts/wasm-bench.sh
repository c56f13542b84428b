#!/usr/bin/env bash
# validate + totals in WebAssembly (Node, the default package of bindings/node/dist) against native (criterion), and
# the face's check() against the native face: the "<= 2x" target of docs/benchmarks.md. Reported, not enforced: on a
# shared 2-core machine both figures swing by 2x from run to run. Run by scripts/bench.sh and at the end of
# scripts/wasm-check.sh when run alone (scripts/test.sh sets KUATIA_WASM_BENCH=0: a benchmark, not a test, and its
# two optimised builds cost minutes of every CI run). Builds the package first when it is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
PKG=bindings/node
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"
say() { printf '\n--- %s\n' "$*"; }
if [ ! -f "$PKG/dist/default/kuatia_wasm_bg.wasm" ]; then
  KUATIA_WASM_BUILD_ONLY=1 bash scripts/wasm-check.sh
fi

say "benchmark: validate + totals, WebAssembly (node) vs native"
BENCH_ARGS=(--warm-up-time 1 --measurement-time 3 --noplot)
cargo bench -q -p kuatia-core --bench invoice --locked -- validate_totals_3 "${BENCH_ARGS[@]}" 2>/dev/null |
  tee /tmp/kuatia-bench-core.txt | grep -A1 '^validate_totals' || true
cargo bench -q -p kuatia-wasm --bench face --locked -- "${BENCH_ARGS[@]}" 2>/dev/null |
  tee /tmp/kuatia-bench-face.txt | grep -A1 '^face_check' || true
BENCH_JSON=$(cd $PKG && node bench/check.mjs)
WASM_NS=$(echo "$BENCH_JSON" | sed -E 's/.*"ns_per_call":([0-9]+).*/\1/')
WASM_CORE_NS=$(echo "$BENCH_JSON" | sed -E 's/.*"core_ns":([0-9]+).*/\1/')
node - "$WASM_NS" "$WASM_CORE_NS" /tmp/kuatia-bench-core.txt /tmp/kuatia-bench-face.txt <<'EOF'
// Reads criterion's median ("time: [low MEDIAN high]") and compares with the WebAssembly figures.
const fs = require("node:fs");
const [wasmNs, wasmCoreNs, coreFile, faceFile] = process.argv.slice(2);
const unit = { ns: 1, "µs": 1e3, us: 1e3, ms: 1e6 };
const median = (file) => {
  const m = fs.readFileSync(file, "utf8").match(/time:\s+\[\S+ \S+ (\S+) (\S+) \S+ \S+\]/);
  if (!m) throw new Error(`no criterion figure in ${file}`);
  return Number(m[1]) * unit[m[2]];
};
const core = median(coreFile);
const face = median(faceFile);
const wasm = Number(wasmNs);
const wasmCore = Number(wasmCoreNs);
console.log(`native core validate+totals (pre-parsed request):             ${(core / 1e3).toFixed(2)} µs`);
console.log(`wasm core validate+totals (pre-parsed request, same loop):     ${(wasmCore / 1e3).toFixed(2)} µs`);
console.log(`native face check (JSON text in, parse+validate+totals+JSON out): ${(face / 1e3).toFixed(2)} µs`);
console.log(`wasm check() in node (JS object in and out: + JSON.stringify/parse): ${(wasm / 1e3).toFixed(2)} µs`);
console.log(`ratio wasm / native, validate+totals: ${(wasmCore / core).toFixed(2)}x (target <= 2x); check() API / native face: ${(wasm / face).toFixed(2)}x`);
// Reported, not enforced: on a shared 2-core machine both figures swing by 2x from run to run.
if (wasmCore > 2 * core) console.log("NOTE: above the 2x target on this run");
EOF
