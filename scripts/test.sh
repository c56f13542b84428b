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

step "tests"
cargo test --workspace --locked
