#!/usr/bin/env bash
# Long fuzz campaign (out of CI): runs every cargo-fuzz target for SECONDS (default 3600) each, from its committed
# corpus (fuzz/corpus/<target>) plus fresh seeds (scripts/fuzz-seeds.py), then minimises the corpus with
# `cargo fuzz cmin` and writes it back to fuzz/corpus/<target> for you to commit. CI's smoke run
# (scripts/reliability.sh) starts from these corpora.
#
# Usage: scripts/fuzz-campaign.sh [SECONDS] [TARGET...]   (JOBS=n runs n libFuzzer jobs per target; default 1)
# Prints, per target: executions, CPU seconds spent fuzzing (user + system, all jobs), corpus files and bytes after
# minimisation, crashes (artifacts kept under
# target/fuzz-campaign/artifacts/<target>/). A crash does not stop the campaign; fix it, add a regression test
# that replays the artifact, and record both in docs/reliability.md.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
SECONDS_PER_TARGET="${1:-3600}"
shift || true
NIGHTLY="${KUATIA_NIGHTLY:-nightly-2026-05-20}"
JOBS="${JOBS:-1}"
WORK="$ROOT/target/fuzz-campaign"
mkdir -p "$WORK"
REPORT="$WORK/report.txt"
: >"$REPORT"

(cd fuzz && cargo "+$NIGHTLY" fuzz build -O --debug-assertions)
TARGETS=("$@")
if [ "${#TARGETS[@]}" -eq 0 ]; then mapfile -t TARGETS < <(cd fuzz && cargo "+$NIGHTLY" fuzz list); fi

SEEDS="$WORK/seeds"
rm -rf "$SEEDS" && mkdir -p "$SEEDS"
python3 scripts/fuzz-seeds.py "$ROOT" "$SEEDS"

printf '%-16s %14s %8s %8s %10s %8s\n' target executions cpu_s files bytes crashes | tee -a "$REPORT"
for t in "${TARGETS[@]}"; do
  run="$WORK/run/$t" artifacts="$WORK/artifacts/$t" log="$WORK/$t.log"
  rm -rf "$run" "$artifacts" && mkdir -p "$run" "$artifacts" "fuzz/corpus/$t"
  cp -a "fuzz/corpus/$t"/. "$run"/ 2>/dev/null || true
  [ -d "$SEEDS/$t" ] && cp -a "$SEEDS/$t"/. "$run"/
  # -fork keeps going after a crash (each crash lands in $artifacts); rc is then non-zero, which is reported.
  set +e
  # /usr/bin/time counts the CPU of every forked job (they are waited for), which is what "CPU-hours" means.
  (cd fuzz && /usr/bin/time -f '%U %S' -o "$WORK/$t.cpu" cargo "+$NIGHTLY" fuzz run -O --debug-assertions "$t" "$run" -- \
    -max_total_time="$SECONDS_PER_TARGET" -fork="$JOBS" -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
    -rss_limit_mb=2048 -max_len=65536 -timeout=10 -print_final_stats=1 -artifact_prefix="$artifacts/" \
    >"$log" 2>&1)
  set -e
  # Fork mode prints "#N ... exec/s" lines, summed over jobs; the last one is the total.
  execs="$(grep -Eo '^#[0-9]+' "$log" | tail -n 1 | tr -d '#' || true)"
  stat="$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | grep -o '[0-9]*$' | paste -sd+ | bc 2>/dev/null || true)"
  [ -n "$stat" ] && [ "${stat:-0}" -gt "${execs:-0}" ] && execs="$stat"
  cpu="$(awk '/^[0-9.]+ [0-9.]+$/ {printf "%d", $1 + $2}' "$WORK/$t.cpu" 2>/dev/null || true)"
  # Minimise into the committed corpus: only inputs that add coverage stay.
  rm -rf "fuzz/corpus/$t" && mkdir -p "fuzz/corpus/$t"
  (cd fuzz && cargo "+$NIGHTLY" fuzz cmin -O --debug-assertions "$t" "$run" -- -max_len=65536 -rss_limit_mb=2048 \
    >"$WORK/$t.cmin.log" 2>&1) || true
  cp -a "$run"/. "fuzz/corpus/$t"/
  crashes="$(find "$artifacts" -type f \( -name 'crash-*' -o -name 'oom-*' -o -name 'timeout-*' \) | wc -l)"
  files="$(find "fuzz/corpus/$t" -type f | wc -l)"
  bytes="$(du -sb "fuzz/corpus/$t" | cut -f1)"
  printf '%-16s %14s %8s %8s %10s %8s\n' "$t" "${execs:-?}" "${cpu:-?}" "$files" "$bytes" "$crashes" | tee -a "$REPORT"
done
echo "report: $REPORT; corpora in fuzz/corpus/ (commit them); crashes under $WORK/artifacts/"
