#!/usr/bin/env bash
# Reliability harness: cargo-deny (advisories, licences, bans, sources), a fuzz smoke run of every cargo-fuzz target,
# and a subset of the C-ABI tests under Miri. Idempotent and bounded: tool installs are pinned (--locked) and skipped
# when the installed version matches; every network-touching step runs under `timeout`; a tool that cannot be
# installed or run here is skipped with a message saying why, and never fails the build on its own.
# Knobs: FUZZ_SECONDS (per target, default 10), RELIABILITY_SKIP="deny fuzz miri" (any subset).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
CARGO_DENY_VERSION="0.20.2"
CARGO_FUZZ_VERSION="0.13.2"
FUZZ_SECONDS="${FUZZ_SECONDS:-10}"
SKIP="${RELIABILITY_SKIP:-}"
TARGET_DIR="$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')"
WORK="$TARGET_DIR/reliability"
mkdir -p "$WORK"
SUMMARY="$WORK/summary.txt"
: >"$SUMMARY"

note() { printf -- '--> %s\n' "$*"; }
record() { printf '%s\n' "$*" | tee -a "$SUMMARY"; }
skipped() { case " $SKIP " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }

# Installs `crate` at `version` with --locked unless `probe` already prints `expected`; bounded by `limit` seconds.
install_pinned() {
  local crate="$1" version="$2" expected="$3" limit="$4" probe
  probe="$(cargo "${crate#cargo-}" --version 2>/dev/null || true)"
  if [ "$probe" = "$expected" ]; then return 0; fi
  note "installing $crate $version (at most ${limit}s)"
  timeout "$limit" cargo install "$crate" --version "$version" --locked >"$WORK/install-$crate.log" 2>&1
}

# 1. cargo-deny.
if ! skipped deny; then
  note "cargo-deny"
  if install_pinned cargo-deny "$CARGO_DENY_VERSION" "cargo-deny $CARGO_DENY_VERSION" 1200; then
    # The advisory DB is a git clone from GitHub: fetch it (bounded), else check everything else offline.
    if timeout 60 cargo deny fetch db >"$WORK/deny-fetch.log" 2>&1; then
      timeout 180 cargo deny --offline check 2>"$WORK/deny.log" || { cat "$WORK/deny.log" >&2; exit 1; }
      record "cargo-deny: advisories, bans, licenses, sources ok"
    else
      timeout 180 cargo deny --offline check bans licenses sources 2>"$WORK/deny.log" \
        || { cat "$WORK/deny.log" >&2; exit 1; }
      record "cargo-deny: bans, licenses, sources ok; advisories SKIPPED (advisory DB unreachable: $(grep -m1 -o 'Could not resolve host: [^ ]*\|unable to access[^)]*' "$WORK/deny-fetch.log" || echo 'fetch failed'))"
    fi
    grep -E '^warning\[' "$WORK/deny.log" | sort | uniq -c | sed 's/^/    /' || true
  else
    record "cargo-deny: SKIPPED (cargo install cargo-deny $CARGO_DENY_VERSION failed, see $WORK/install-cargo-deny.log)"
  fi
fi

# 2. Fuzz smoke: each target for FUZZ_SECONDS from a seed corpus (nightly + cargo-fuzz + a C++ compiler).
if ! skipped fuzz; then
  note "fuzz smoke (${FUZZ_SECONDS}s per target)"
  if ! rustup run nightly rustc --version >/dev/null 2>&1; then
    record "fuzz: SKIPPED (no nightly toolchain; cargo-fuzz needs -Zsanitizer)"
  elif ! install_pinned cargo-fuzz "$CARGO_FUZZ_VERSION" "cargo-fuzz $CARGO_FUZZ_VERSION" 900; then
    record "fuzz: SKIPPED (cargo install cargo-fuzz $CARGO_FUZZ_VERSION failed, see $WORK/install-cargo-fuzz.log)"
  else
    # Seed corpora (regenerated each run; libFuzzer adds its finds to the same directories, kept under target/).
    CORPUS="$WORK/corpus"
    mkdir -p "$CORPUS"/{create_request,de_xml,p12,ids,service_handle,sifen_response}
    python3 - "$ROOT" "$CORPUS" <<'PY'
import json, pathlib, sys
root, corpus = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
for case in sorted((root / "tests/fixtures/cases").glob("*.json")):
    req = json.loads(case.read_text())["request"]
    (corpus / "create_request" / case.name).write_text(json.dumps(req))
    body = json.dumps(req)
    (corpus / "service_handle" / case.name).write_bytes(b"\x80/v1/facturas\nX-Environment: sandbox\nIdempotency-Key: k\n\n" + body.encode())
for s in sorted((root / "core/tests/sifen_samples").iterdir()):
    (corpus / "sifen_response" / s.name).write_bytes(s.read_bytes())
# A compact rDE (no signature) and the SIFEN samples (some embed an rDE) seed the DE parser.
(corpus / "de_xml" / "rde.xml").write_text(
    '<rDE xmlns="http://ekuatia.set.gov.py/sifen/xsd"><dVerFor>150</dVerFor>'
    '<DE Id="01444444017001001000000122025031011234567890"><dDVId>0</dDVId><dFecFirma>2025-03-10T10:11:00</dFecFirma>'
    '<dSisFact>1</dSisFact><gTimb><iTiDE>1</iTiDE><dNumTim>12558946</dNumTim><dEst>001</dEst><dPunExp>001</dPunExp>'
    '<dNumDoc>0000001</dNumDoc></gTimb><gCamItem><dDesProSer>x</dDesProSer><dCantProSer>2</dCantProSer></gCamItem>'
    '</DE></rDE>')
for s in sorted((root / "core/tests/sifen_samples").glob("*.xml")):
    (corpus / "de_xml" / s.name).write_bytes(s.read_bytes())
for p in sorted((root / "core/testdata").glob("*.p12")):
    (corpus / "p12" / p.name).write_bytes(b"\x01" + p.read_bytes())
for i, s in enumerate(["80069563-1", "44444401-7", "01444444017001001000000122025031011234567890", "4444440-1"]):
    (corpus / "ids" / f"seed{i}").write_text(s)
for m, p in [(1, "/v1/health"), (0x80, "/v1/facturas?page=2&per_page=5"), (0x81, "/v1/webhooks")]:
    (corpus / "service_handle" / f"seed{m}").write_bytes(bytes([m]) + p.encode() + b"\nX-Environment: sandbox\n\n")
PY
    # The fuzz crate is its own workspace with its own lockfile; build once (bounded), then run each target.
    # A first build compiles aws-lc under the sanitizer (minutes on 2 cores): a timeout skips, a compile error fails.
    set +e
    (cd fuzz && timeout 1500 cargo +nightly fuzz build -O --debug-assertions >"$WORK/fuzz-build.log" 2>&1)
    rc=$?
    set -e
    if [ "$rc" -eq 124 ]; then
      record "fuzz: SKIPPED (first build of the targets did not finish in 1500s; the next run reuses what was built)"
      FUZZ_TARGETS=""
    elif [ "$rc" -ne 0 ]; then
      tail -n 30 "$WORK/fuzz-build.log" >&2
      echo "fuzz targets do not build" >&2
      exit 1
    else
      FUZZ_TARGETS="$(cd fuzz && cargo +nightly fuzz list)"
    fi
    for t in $FUZZ_TARGETS; do
      log="$WORK/fuzz-$t.log"
      mkdir -p "$CORPUS/$t"
      set +e
      (cd fuzz && timeout $((FUZZ_SECONDS + 60)) cargo +nightly fuzz run -O --debug-assertions "$t" "$CORPUS/$t" -- \
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
      record "fuzz $t: ${execs:-?} executions in ${FUZZ_SECONDS}s, no crash"
    done
  fi
fi

# 3. Miri on the C-ABI tests that stay in Rust (no aws-lc C code: signing and key loading cannot run under Miri).
if ! skipped miri; then
  note "Miri (kuatia-ffi abi tests without signing)"
  if ! rustup component list --toolchain nightly --installed 2>/dev/null | grep -q '^miri'; then
    timeout 300 rustup component add --toolchain nightly miri rust-src >"$WORK/miri-install.log" 2>&1 || true
  fi
  if ! cargo +nightly miri --version >/dev/null 2>&1; then
    record "miri: SKIPPED (rustup component miri unavailable for the nightly toolchain)"
  else
    # Every abi test that never reaches aws-lc (signing, key loading): the rest call C code Miri cannot run.
    MIRI_TESTS=(invalid_utf8_is_reported_with_the_argument absurd_lengths_are_refused_before_reading
      frees_accept_null_and_double_free_through_the_same_buffer_is_harmless ruc_and_cdc
      service_null_arguments_are_named_and_nothing_is_written
      service_sandbox_progresses_with_the_callers_clock_and_unsigned_without_a_signer
      service_unauthorized_and_http_errors_are_answers_not_call_errors)
    set +e
    # Separate target dir: Miri's MIR-only artefacts must not evict the normal build's.
    MIRIFLAGS="-Zmiri-disable-isolation" timeout 600 cargo +nightly miri test -p kuatia-ffi --test abi \
      --target-dir "$TARGET_DIR/miri" -- --exact "${MIRI_TESTS[@]}" >"$WORK/miri.log" 2>&1
    rc=$?
    set -e
    if [ "$rc" -eq 0 ]; then
      record "miri: $(grep -m1 '^test result' "$WORK/miri.log") (${MIRI_TESTS[*]})"
    elif [ "$rc" -eq 124 ]; then
      record "miri: SKIPPED (did not finish in 600s; see $WORK/miri.log)"
    else
      grep -B 5 -A 30 -E '^error|Undefined Behavior|panicked' "$WORK/miri.log" | head -n 80 >&2 || tail -n 40 "$WORK/miri.log" >&2
      echo "Miri found a problem (see $WORK/miri.log)" >&2
      exit 1
    fi
  fi
fi

note "reliability summary"
cat "$SUMMARY"
