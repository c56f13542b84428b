#!/usr/bin/env bash
# Runs every check and test of the project. This is the README's test command; .ci/run calls exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"

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
log=""
stage_table() {
  local rc=$?
  [ -z "$log" ] || rm -f "$log"
  stage_end
  printf '\n==> stage times%s\n' "$([ "$rc" -eq 0 ] || echo " (stopped by a failure, exit $rc)")"
  printf '%s\n' "${STAGES[@]}"
  printf '%8s  total\n' "$(mmss $((SECONDS - RUN_T0)))"
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

step "clippy (all targets, warnings are errors)"
cargo clippy --workspace --all-targets --locked -- -D warnings

step "core builds for the browser (wasm32, no private-key code)"
cargo check -p kuatia-core --no-default-features --target wasm32-unknown-unknown --locked

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

step "C ABI (header drift, C tests under ASAN/UBSAN and valgrind)"; bash scripts/ffi-check.sh

step "Java binding"; bash scripts/java-check.sh

step "Bindings (Python, Go, PHP, parity)"; bash scripts/bindings-check.sh

step "WebAssembly (build, node tests, tsc, size budget, browser demo)"; bash scripts/wasm-check.sh

step "Account panel in headless Chromium (walk of a new issuer, screenshots)"; bash scripts/panel-check.sh

step "Packages (C install, wheel + sdist, npm tarball, jar, Go module; each in a clean consumer; docs' code blocks)"
bash scripts/packages-check.sh

step "Reliability (cargo-deny, fuzz smoke, Miri)"; bash scripts/reliability.sh

step "tests"
log="$(mktemp)" # removed by stage_table (the EXIT trap)
# Next to a throwaway PostgreSQL server (scripts/pg-test.sh): the PostgreSQL store's tests and the three-node test.
bash scripts/pg-test.sh cargo test --workspace --locked 2>&1 | tee "$log"
# One closing line for the whole Rust suite (cargo prints one per test binary, the last one often a 0-test doc run).
awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($i ~ /^passed;?$/) p += $(i-1); if ($i ~ /^failed;?$/) f += $(i-1) } }
     END { printf "rust tests: %d passed, %d failed\n", p, f }' "$log"

step "no CPU-jitter entropy in the built kuatia CLI and libkuatia (.cargo/config.toml)"; bash scripts/entropy-check.sh
