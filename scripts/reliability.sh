#!/usr/bin/env bash
# Reliability harness: cargo-deny (advisories, licences, bans, sources), a fuzz smoke run of every cargo-fuzz target
# from its committed corpus (fuzz/corpus/<target>), and a subset of the C-ABI tests under Miri. docs/reliability.md
# explains each gate and records the last fuzz campaign.
#
# Idempotent and bounded: tool installs are pinned (--locked, a dated nightly) and skipped when the installed version
# matches; every network-touching step runs under `timeout`.
# With CI=true (or RELIABILITY_STRICT=1) nothing is skipped: a tool that cannot be installed, a toolchain that is
# missing, a fuzz build that does not finish or an advisory database that cannot be read fails the run, and
# RELIABILITY_SKIP is refused. Elsewhere such a step is skipped with a message saying why.
# Advisories are read offline from a RustSec snapshot: KUATIA_ADVISORY_DB, else ../shared/advisory-db next to the
# repository (see its SOURCE.md). Without one (a public clone) the run says loudly that advisories were NOT checked.
# Knobs: FUZZ_SECONDS (per target, default 5), RELIABILITY_SKIP="deny fuzz miri" (any subset; not with CI=true).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
CARGO_DENY_VERSION="0.20.2"
CARGO_FUZZ_VERSION="0.13.2"
# cargo-fuzz and Miri need nightly; a dated one so that a fresh machine builds what was tested.
NIGHTLY="${KUATIA_NIGHTLY:-nightly-2026-05-20}"
FUZZ_SECONDS="${FUZZ_SECONDS:-5}"
SKIP="${RELIABILITY_SKIP:-}"
STRICT=0
if [ "${CI:-}" = "true" ] || [ "${RELIABILITY_STRICT:-0}" = "1" ]; then STRICT=1; fi
if [ "$STRICT" = 1 ] && [ -n "$SKIP" ]; then
  echo "RELIABILITY_SKIP=\"$SKIP\" is not honoured with CI=true: every reliability gate runs in CI" >&2
  exit 1
fi
TARGET_DIR="$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')"
WORK="$TARGET_DIR/reliability"
mkdir -p "$WORK"
SUMMARY="$WORK/summary.txt"
: >"$SUMMARY"

note() { printf -- '--> %s\n' "$*"; }
record() { printf '%s\n' "$*" | tee -a "$SUMMARY"; }
skipped() { case " $SKIP " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
# A gate that could not run: a failure with CI=true, a loud SKIPPED line elsewhere.
cannot() {
  if [ "$STRICT" = 1 ]; then
    record "FAILED: $* (CI=true: reliability gates cannot be skipped)"
    cat "$SUMMARY" >&2
    exit 1
  fi
  record "$*"
}

# Installs `crate` at `version` with --locked unless `probe` already prints `expected`; bounded by `limit` seconds.
# Both tools build in one target directory kept under target/ (crates they share at the same version and features
# are compiled once, and a version bump rebuilds only what changed).
install_pinned() {
  local crate="$1" version="$2" expected="$3" limit="$4" probe
  probe="$(cargo "${crate#cargo-}" --version 2>/dev/null || true)"
  if [ "$probe" = "$expected" ]; then return 0; fi
  note "installing $crate $version (at most ${limit}s)"
  timeout "$limit" cargo install "$crate" --version "$version" --locked --target-dir "$TARGET_DIR/tool-installs" \
    >"$WORK/install-$crate.log" 2>&1
}

# The dated nightly with Miri and rust-src (rustup skips what is already installed).
nightly_ready() {
  if ! rustup run "$NIGHTLY" rustc --version >/dev/null 2>&1 \
    || ! rustup component list --toolchain "$NIGHTLY" --installed 2>/dev/null | grep '^miri' >/dev/null; then
    note "installing $NIGHTLY with miri and rust-src (at most 900s)"
    timeout 900 rustup toolchain install "$NIGHTLY" --profile minimal --component miri,rust-src \
      >"$WORK/install-nightly.log" 2>&1 || return 1
  fi
  rustup run "$NIGHTLY" rustc --version >/dev/null 2>&1
}

# A throw-away git repository of the RustSec snapshot where cargo-deny looks for the default database
# (<db-path>/advisory-db-3157b0e258782691, read at its HEAD), and a copy of deny.toml pointing db-path at it.
# Sets DENY_CONFIG; returns 2 when there is no snapshot, 1 when there is one that cannot be prepared.
ADVISORY_SRC="${KUATIA_ADVISORY_DB:-$ROOT/../shared/advisory-db}"
advisory_config() {
  local dbroot="$WORK/advisory-dbs" db
  [ -d "$ADVISORY_SRC" ] || return 2
  [ -d "$ADVISORY_SRC/crates" ] || return 1
  db="$dbroot/advisory-db-3157b0e258782691"
  rm -rf "$db" && mkdir -p "$db" && cp -a "$ADVISORY_SRC"/. "$db"/ || return 1
  (cd "$db" && git init -q && git add -A \
    && git -c user.name=kuatia -c user.email=ci@kuatia.invalid commit -qm "RustSec snapshot") >/dev/null || return 1
  DENY_CONFIG="$WORK/deny.toml"
  awk -v p="$dbroot" '{ print } /^\[advisories\]/ { print "db-path = \"" p "\"" }' deny.toml >"$DENY_CONFIG"
}

# The Miri run of section 3, to be prepared (built, no test run: no test has that name) or run with its tests.
# Separate target dir: Miri's MIR-only artefacts must not evict the normal build's.
# The tests live in three files of ffi/tests since the split by concern (abi, ids_invoice, service).
MIRI_ABI=(env MIRIFLAGS="-Zmiri-disable-isolation" cargo "+$NIGHTLY" miri test -p kuatia-ffi --test abi
  --test ids_invoice --test service --target-dir "$TARGET_DIR/miri" -- --exact)

# `--prepare`: only the slow steps that need no result of the rest of the run (the pinned tools' installs, the nightly,
# the fuzz build, Miri's sysroot and build), then exit. scripts/test.sh starts it in the background at the beginning
# of a run (niced, in its own process group), where it fills the cores that the single-threaded and network-bound
# stages leave idle, and waits for it before the reliability stage. The full run then finds everything ready and
# still runs every gate; whatever the preparation could not do, it does (or fails on) itself.
if [ "${1:-}" = "--prepare" ]; then
  rc=0
  if ! skipped deny; then
    install_pinned cargo-deny "$CARGO_DENY_VERSION" "cargo-deny $CARGO_DENY_VERSION" 1200 || rc=1
  fi
  if ! skipped fuzz || ! skipped miri; then
    if ! nightly_ready; then
      rc=1
    else
      if ! skipped fuzz; then
        if install_pinned cargo-fuzz "$CARGO_FUZZ_VERSION" "cargo-fuzz $CARGO_FUZZ_VERSION" 900; then
          note "fuzz build"
          (cd fuzz && timeout 1500 cargo "+$NIGHTLY" fuzz build -O --debug-assertions >"$WORK/fuzz-build.log" 2>&1) || rc=1
        else
          rc=1
        fi
      fi
      if ! skipped miri; then
        note "Miri build"
        timeout 900 "${MIRI_ABI[@]}" kuatia_prepare_only_no_such_test >"$WORK/miri-prepare.log" 2>&1 || rc=1
      fi
    fi
  fi
  note "prepared (rc $rc)"
  exit "$rc"
fi

# 1. cargo-deny: every check offline; advisories from the snapshot. An advisory not accepted in deny.toml fails.
if ! skipped deny; then
  note "cargo-deny"
  if install_pinned cargo-deny "$CARGO_DENY_VERSION" "cargo-deny $CARGO_DENY_VERSION" 1200; then
    set +e
    advisory_config
    rc=$?
    set -e
    if [ "$rc" -eq 0 ]; then
      snapshot="$(grep -m1 -oE '[0-9a-f]{40} of [0-9-]+' "$ADVISORY_SRC/SOURCE.md" | sed -E 's/^([0-9a-f]{12})[0-9a-f]* /\1 /' || true)"
      timeout 180 cargo deny --offline --config "$DENY_CONFIG" check advisories bans licenses sources \
        2>"$WORK/deny.log" || { cat "$WORK/deny.log" >&2; echo "cargo-deny failed (advisories: $ADVISORY_SRC)" >&2; exit 1; }
      record "cargo-deny: advisories (snapshot ${snapshot:-?}, $ADVISORY_SRC), bans, licenses, sources ok"
    elif [ "$rc" -eq 2 ]; then
      timeout 180 cargo deny --offline check bans licenses sources 2>"$WORK/deny.log" \
        || { cat "$WORK/deny.log" >&2; exit 1; }
      record "cargo-deny: bans, licenses, sources ok"
      record "cargo-deny: ADVISORIES NOT CHECKED: no RustSec snapshot at $ADVISORY_SRC (set KUATIA_ADVISORY_DB)"
    else
      echo "the RustSec snapshot at $ADVISORY_SRC cannot be read (no crates/, or git failed)" >&2
      exit 1
    fi
    grep -E '^warning\[' "$WORK/deny.log" | sort | uniq -c | sed 's/^/    /' || true
  else
    cannot "cargo-deny: SKIPPED (cargo install cargo-deny $CARGO_DENY_VERSION failed, see $WORK/install-cargo-deny.log)"
  fi
fi

# 2. Fuzz smoke: each target for FUZZ_SECONDS from its committed corpus (fuzz/corpus/<target>, minimised by
# scripts/fuzz-campaign.sh), copied so that the run leaves the repository untouched. Needs the nightly, cargo-fuzz,
# a C++ compiler and libxml2-dev (c14n_diff compares our C14N with libxml2's).
if ! skipped fuzz; then
  note "fuzz smoke (${FUZZ_SECONDS}s per target)"
  if ! nightly_ready; then
    cannot "fuzz: SKIPPED ($NIGHTLY could not be installed, see $WORK/install-nightly.log; cargo-fuzz needs -Zsanitizer)"
  elif ! install_pinned cargo-fuzz "$CARGO_FUZZ_VERSION" "cargo-fuzz $CARGO_FUZZ_VERSION" 900; then
    cannot "fuzz: SKIPPED (cargo install cargo-fuzz $CARGO_FUZZ_VERSION failed, see $WORK/install-cargo-fuzz.log)"
  else
    CORPUS="$WORK/corpus"
    rm -rf "$CORPUS" && mkdir -p "$CORPUS"
    # The fuzz crate is its own workspace with its own lockfile; build once (bounded), then run each target.
    # A first build compiles aws-lc under the sanitizer (minutes on 2 cores).
    set +e
    (cd fuzz && timeout 1500 cargo "+$NIGHTLY" fuzz build -O --debug-assertions >"$WORK/fuzz-build.log" 2>&1)
    rc=$?
    set -e
    FUZZ_TARGETS=""
    if [ "$rc" -eq 124 ]; then
      cannot "fuzz: SKIPPED (first build of the targets did not finish in 1500s; the next run reuses what was built)"
    elif [ "$rc" -ne 0 ]; then
      tail -n 30 "$WORK/fuzz-build.log" >&2
      echo "fuzz targets do not build" >&2
      exit 1
    else
      FUZZ_TARGETS="$(cd fuzz && cargo "+$NIGHTLY" fuzz list)"
    fi
    for t in $FUZZ_TARGETS; do
      log="$WORK/fuzz-$t.log"
      if [ -d "fuzz/corpus/$t" ] && [ -n "$(ls -A "fuzz/corpus/$t")" ]; then
        cp -a "fuzz/corpus/$t" "$CORPUS/$t"
      elif [ "$STRICT" = 1 ]; then
        echo "fuzz target $t has no committed corpus (run scripts/fuzz-campaign.sh and commit fuzz/corpus/$t)" >&2
        exit 1
      else
        mkdir -p "$CORPUS/$t"
      fi
      set +e
      (cd fuzz && timeout $((FUZZ_SECONDS + 120)) cargo "+$NIGHTLY" fuzz run -O --debug-assertions "$t" "$CORPUS/$t" -- \
        -max_total_time="$FUZZ_SECONDS" -rss_limit_mb=2048 -max_len=65536 -timeout=10 -print_final_stats=1 \
        -artifact_prefix="$WORK/artifacts-" >"$log" 2>&1)
      rc=$?
      set -e
      execs="$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | grep -o '[0-9]*$' || true)"
      if [ -z "$execs" ]; then execs="$(grep -Eo '^#[0-9]+' "$log" | tail -n 1 | tr -d '#' || true)"; fi
      if [ "$rc" -ne 0 ]; then
        grep -A 30 -E 'ERROR: libFuzzer|panicked at|SUMMARY' "$log" | head -n 60 >&2 || tail -n 40 "$log" >&2
        echo "fuzz target $t failed (rc $rc); reproducer under $WORK/artifacts-*" >&2
        exit 1
      fi
      record "fuzz $t: ${execs:-?} executions in ${FUZZ_SECONDS}s from $(find "fuzz/corpus/$t" -type f 2>/dev/null | wc -l) committed inputs, no crash"
    done
  fi
fi

# 3. Miri on the C-ABI tests that stay in Rust (no aws-lc C code: signing and key loading cannot run under Miri).
if ! skipped miri; then
  note "Miri (kuatia-ffi abi tests without signing)"
  if ! nightly_ready || ! cargo "+$NIGHTLY" miri --version >/dev/null 2>&1; then
    cannot "miri: SKIPPED (rustup component miri unavailable for $NIGHTLY, see $WORK/install-nightly.log)"
  else
    # Every abi test that never reaches aws-lc (signing, key loading): the rest call C code Miri cannot run.
    MIRI_TESTS=(invalid_utf8_is_reported_with_the_argument absurd_lengths_are_refused_before_reading
      frees_accept_null_and_double_free_through_the_same_buffer_is_harmless ruc_and_cdc
      service_null_arguments_are_named_and_nothing_is_written
      service_sandbox_progresses_with_the_callers_clock_and_unsigned_without_a_signer
      service_unauthorized_and_http_errors_are_answers_not_call_errors)
    set +e
    timeout 600 "${MIRI_ABI[@]}" "${MIRI_TESTS[@]}" >"$WORK/miri.log" 2>&1
    rc=$?
    set -e
    # Every named test must have run: a test renamed or moved to another file would otherwise be filtered out quietly.
    ran="$(awk '/^test result:/ { for (i = 1; i <= NF; i++) if ($i ~ /^passed;?$/) p += $(i-1) } END { print p + 0 }' "$WORK/miri.log")"
    if [ "$rc" -eq 0 ] && [ "$ran" -ne "${#MIRI_TESTS[@]}" ]; then
      echo "Miri ran $ran of the ${#MIRI_TESTS[@]} named tests (renamed or moved? see $WORK/miri.log)" >&2
      exit 1
    fi
    if [ "$rc" -eq 0 ]; then
      record "miri: $ran of ${#MIRI_TESTS[@]} named tests passed (${MIRI_TESTS[*]})"
    elif [ "$rc" -eq 124 ]; then
      cannot "miri: SKIPPED (did not finish in 600s; see $WORK/miri.log)"
    else
      grep -B 5 -A 30 -E '^error|Undefined Behavior|panicked' "$WORK/miri.log" | head -n 80 >&2 || tail -n 40 "$WORK/miri.log" >&2
      echo "Miri found a problem (see $WORK/miri.log)" >&2
      exit 1
    fi
  fi
fi

note "reliability summary"
cat "$SUMMARY"
