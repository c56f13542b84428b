#!/usr/bin/env bash
# Runs every check and test of the project. This is the README's test command; .ci/run calls exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"
# A CI run builds everything once from scratch: incremental caches would only double the disk the debug build takes
# (13 GB of target/debug/incremental on a working machine). The disk is reported at the start and in the stage
# table: one run died of a full disk (the linker's SIGBUS) with no figure in its log.
if [ "${CI:-}" = true ]; then export CARGO_INCREMENTAL=0; fi
TARGET_DIR="${CARGO_TARGET_DIR:-target}"
disk_note() {
  local used free
  used="$(du -sh "$TARGET_DIR" 2>/dev/null | cut -f1)" || used="?"
  free="$(df -h --output=avail . 2>/dev/null | tail -1 | tr -d ' ')" || free="?"
  printf 'disk: %s in %s, %s free\n' "${used:-0}" "$TARGET_DIR" "$free"
}
disk_note

# Each step's wall time is printed when the next one starts, and a table with the total at the end (also when a step
# fails), so every CI log shows where the time goes (docs/benchmarks.md, "CI stages").
# .ci/run passes the time its installs took (KUATIA_CI_SETUP_SECONDS): a row of its own, counted in the total.
STAGES=() STAGE_NAME="" STAGE_T0=0 RUN_T0=$((SECONDS - ${KUATIA_CI_SETUP_SECONDS:-0}))
mmss() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }
stage_end() {
  [ -n "$STAGE_NAME" ] || return 0
  local took=$((SECONDS - STAGE_T0))
  STAGES+=("$(printf '%8s  %s' "$(mmss "$took")" "$STAGE_NAME")")
  printf -- '--- %s: %s\n' "$STAGE_NAME" "$(mmss "$took")"
  STAGE_NAME=""
}
log="" tests_tmp="" PREP_PID=""
stage_table() {
  local rc=$?
  [ -z "$log" ] || rm -f "$log"
  [ -z "$tests_tmp" ] || rm -rf "$tests_tmp"
  # A run that stops early also stops the reliability preparation it started (its own process group).
  if [ -n "$PREP_PID" ] && kill -0 "$PREP_PID" 2>/dev/null; then kill -- -"$PREP_PID" 2>/dev/null || true; fi
  stage_end
  printf '\n==> stage times%s\n' "$([ "$rc" -eq 0 ] || echo " (stopped by a failure, exit $rc)")"
  printf '%s\n' "${STAGES[@]}"
  printf '%8s  total\n' "$(mmss $((SECONDS - RUN_T0)))"
  disk_note
}
trap stage_table EXIT
if [ -n "${KUATIA_CI_SETUP_SECONDS:-}" ]; then
  STAGES+=("$(printf '%8s  %s' "$(mmss "$KUATIA_CI_SETUP_SECONDS")" "setup (.ci/run: Debian packages, toolchain)")")
fi
step() {
  stage_end
  STAGE_NAME="${1%% (*}" STAGE_T0=$SECONDS
  printf '\n==> %s\n' "$*"
}

step "format"
cargo fmt --all -- --check
cargo fmt --manifest-path tools/codegen/Cargo.toml -- --check

step "file length (no hand-written source over 900 lines; exceptions in tools/long-files.allow)"
bash scripts/long-files.sh

# The reliability stage's slow preparation (cargo-deny and cargo-fuzz built from source, the dated nightly with Miri,
# the fuzz targets built under ASAN, Miri's build of the C-ABI tests) needs nothing from the stages before it: it
# runs in the background from here on, niced, filling the cores that single-threaded steps (LTO links, JVM, Node,
# Chromium, the tests' servers) and downloads leave idle. The reliability stage waits for it and runs every gate.
PREP_LOG="${CARGO_TARGET_DIR:-target}/reliability-prepare.log"
mkdir -p "$(dirname "$PREP_LOG")"
setsid nice -n 10 bash scripts/reliability.sh --prepare >"$PREP_LOG" 2>&1 &
PREP_PID=$!

step "clippy (all targets, warnings are errors)"
cargo clippy --workspace --all-targets --locked -- -D warnings
# The code generators of the checks (tools/codegen: their own workspace, built in the same target directory).
cargo clippy --manifest-path tools/codegen/Cargo.toml --target-dir "${CARGO_TARGET_DIR:-target}" --locked -- -D warnings

step "core builds for the browser (wasm32, no private-key code)"
cargo check -p kuatia-core --no-default-features --target wasm32-unknown-unknown --locked

step "kuatia-core stays the domain (issue 30: no web app, URL parser, server or database in its default graph)"
core_tree="$(cargo tree -p kuatia-core -e normal --locked)"
if grep -E '^[^a-z]*(argon2|password-hash|url|idna|axum|tokio|rusqlite|postgres|kuatia-service) v' <<<"$core_tree"; then
  echo "kuatia-core's default dependency graph pulls the crates above (cargo tree -p kuatia-core -e normal)" >&2
  exit 1
fi

step "the engine carries no web app; the panel reads no API answer as JSON (issue 30: kuatia-service, kuatia-panel)"
service_tree="$(cargo tree -p kuatia-service -e normal --locked)"
if grep -E '^[^a-z]*(argon2|password-hash|kuatia-panel) v' <<<"$service_tree"; then
  echo "kuatia-service's default dependency graph pulls the crates above (cargo tree -p kuatia-service -e normal)" >&2
  exit 1
fi
# The panel calls the service's typed operations: no JSON value picked apart, no answer parsed, no request made up.
if grep -rnE 'serde_json::Value|\["(data|error)"\]|\.json\(\)|HttpRequest \{' panel/src; then
  echo "panel/src reads API answers as JSON or makes up requests (above): call the service's typed operations" >&2
  exit 1
fi

step "docs"
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --locked

# One debug build of the whole workspace, as `cargo test --workspace` resolves its features, made here for the
# checks below and the tests at the end. The checks that run the kuatia CLI (WebAssembly, panel, packages) use it
# (KUATIA_DEBUG_BUILD=workspace): building `-p kuatia-cli` alone resolves other features for shared crates (serde,
# aws-lc-rs, zerocopy, ...), so that cargo compiled 91 of its 336 units again (tokio, hyper, rustls, axum,
# reqwest, openssl, postgres, the kuatia crates; counted with `cargo +nightly build --unit-graph`).
step "build (debug, once: test binaries, the kuatia CLI)"
cargo test --workspace --no-run --locked
export KUATIA_DEBUG_BUILD=workspace

step "C ABI (header and ABI description drift, C tests under ASAN/UBSAN and valgrind, C# declarations)"; bash scripts/ffi-check.sh
step "Windows DLLs (x86_64/i686 mingw-w64 cross-builds, .def vs exports, C conformance and stdcall under Wine)"; bash scripts/windows-check.sh

step "Java binding"; bash scripts/java-check.sh

step "Bindings (Python, Go, PHP, parity)"; bash scripts/bindings-check.sh

step "C# binding under Mono (conformance cases, service flow, docs example)"; bash scripts/dotnet-check.sh

# Without its validate+totals benchmark (scripts/wasm-bench.sh, run by scripts/bench.sh): two optimised builds for a
# figure that is reported, not enforced.
step "WebAssembly (build, node tests, tsc, size budget, browser demo)"; KUATIA_WASM_BENCH=0 bash scripts/wasm-check.sh

step "Account panel in headless Chromium (walk of a new issuer, screenshots)"; bash scripts/panel-check.sh

step "GET /metrics of kuatia serve (counters as the requests moved them; SQLite and PostgreSQL)"; bash scripts/metrics-check.sh
step "Monthly archive (kuatia archive on a real server, SQLite and PostgreSQL: kuatia verify, xmlsec1, qpdf, unzip, csv)"; bash scripts/archive-check.sh
step "E-mail to the buyer (aiosmtpd on loopback: MIME, qpdf, xmlsec1, retries, kill -9)"; bash scripts/email-check.sh

# docs/openapi.json validated (openapi-spec-validator), then Schemathesis against a real `kuatia serve` with a
# sandbox key: positive and negative data, bounded examples, a fixed seed, under a timeout (~30 s on 2 cores).
step "API against its OpenAPI document (openapi-spec-validator, Schemathesis on kuatia serve)"; bash scripts/api-fuzz.sh

step "Packages (C install, wheel + sdist, npm tarball, jar, Go module; each in a clean consumer; docs' code blocks)"
bash scripts/packages-check.sh

step "Reliability (cargo-deny, fuzz smoke, Miri)"
prep_t0=$SECONDS
if wait "$PREP_PID"; then prep="ready"; else prep="incomplete (exit $?: the run below retries; $PREP_LOG)"; fi
PREP_PID=""
echo "background preparation $prep; waited $((SECONDS - prep_t0)) s for it"
bash scripts/reliability.sh

step "tests"
log="$(mktemp)" # removed by stage_table (the EXIT trap)
# The tests get a temp dir of their own, which must be empty after them: every test removes what it made.
tests_tmp="$(mktemp -d)" && chmod 1777 "$tests_tmp"  # like /tmp: pg-test.sh's server runs as another user
# Next to a throwaway PostgreSQL server (scripts/pg-test.sh): the PostgreSQL store's tests and the three-node test.
TMPDIR="$tests_tmp" bash scripts/pg-test.sh cargo test --workspace --locked 2>&1 | tee "$log"
left="$(ls -A "$tests_tmp")"
[ -z "$left" ] || { printf 'tests left files in their temp dir:\n%s\n' "$left" >&2; exit 1; }
# One closing line for the whole Rust suite (cargo prints one per test binary, the last one often a 0-test doc run).
awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($i ~ /^passed;?$/) p += $(i-1); if ($i ~ /^failed;?$/) f += $(i-1) } }
     END { printf "rust tests: %d passed, %d failed\n", p, f }' "$log"

step "no CPU-jitter entropy in the built kuatia CLI and libkuatia (.cargo/config.toml)"; bash scripts/entropy-check.sh

step "bare clone (committed HEAD, nothing beside it: core tests pass without ../shared)"; bash scripts/bare-clone-check.sh
