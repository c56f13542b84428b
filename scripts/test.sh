#!/usr/bin/env bash
# Runs every check and test of the project. This is the README's test command; .ci/run calls exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"

step() { printf '\n==> %s\n' "$*"; }

step "format"
cargo fmt --all -- --check

step "clippy (all targets, warnings are errors)"
cargo clippy --workspace --all-targets --locked -- -D warnings

step "core builds for the browser (wasm32, no private-key code)"
cargo check -p kuatia-core --no-default-features --target wasm32-unknown-unknown --locked

step "docs"
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --locked

step "C ABI (header drift, C tests under ASAN/UBSAN and valgrind)"; bash scripts/ffi-check.sh

step "Java binding"; bash scripts/java-check.sh

step "Bindings (Python, Go, PHP, parity)"; bash scripts/bindings-check.sh

step "WebAssembly (build, node tests, tsc, size budget, browser demo)"; bash scripts/wasm-check.sh

step "Account panel in headless Chromium (walk of a new issuer, screenshots)"; bash scripts/panel-check.sh

step "Packages (C install, wheel + sdist, npm tarball, jar, Go module; each in a clean consumer; docs' code blocks)"
bash scripts/packages-check.sh

step "Reliability (cargo-deny, fuzz smoke, Miri)"; bash scripts/reliability.sh

step "tests"
log="$(mktemp)"
# The tests get a temp dir of their own, which must be empty after them: every test removes what it made.
tests_tmp="$(mktemp -d)" && chmod 1777 "$tests_tmp"  # like /tmp: pg-test.sh's server runs as another user
trap 'rm -rf "$log" "$tests_tmp"' EXIT
# Next to a throwaway PostgreSQL server (scripts/pg-test.sh): the PostgreSQL store's tests and the three-node test.
TMPDIR="$tests_tmp" bash scripts/pg-test.sh cargo test --workspace --locked 2>&1 | tee "$log"
left="$(ls -A "$tests_tmp")"
[ -z "$left" ] || { printf 'tests left files in their temp dir:\n%s\n' "$left" >&2; exit 1; }
# One closing line for the whole Rust suite (cargo prints one per test binary, the last one often a 0-test doc run).
awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($i ~ /^passed;?$/) p += $(i-1); if ($i ~ /^failed;?$/) f += $(i-1) } }
     END { printf "rust tests: %d passed, %d failed\n", p, f }' "$log"

step "no CPU-jitter entropy in the built kuatia CLI and libkuatia (.cargo/config.toml)"; bash scripts/entropy-check.sh

step "bare clone (committed HEAD, nothing beside it: core tests pass without ../shared)"; bash scripts/bare-clone-check.sh
