#!/usr/bin/env bash
# Soak run of `kuatia serve` (issue 33): a steady mixed load for DURATION (default 30 minutes) on a fresh SQLite data
# directory with the simulated SIFEN and a webhook to a loopback receiver that sometimes answers 500; the server's RSS,
# open files, threads and database size sampled every minute into target/soak/soak.csv, then target/soak/soak.json
# (first/last/max of each series, the flatness verdict) and target/soak/soak.svg. Not part of scripts/test.sh: a long
# run, like the fuzz campaign. The driver is scripts/soak.py (its docstring says what it sends and checks).
#
#   bash scripts/soak.sh                        # 30 minutes at 10 requests/s, release build
#   DURATION=2m bash scripts/soak.sh            # a trial
#   RATE=20 SAMPLE=30 DURATION=1h bash scripts/soak.sh
#   KUATIA_SOAK_PROFILE=debug bash scripts/soak.sh     # the debug build (quicker to build, slower to serve)
#   KUATIA_SOAK_BIN=/path/to/kuatia bash scripts/soak.sh  # a binary already built (no cargo)
#
# Needs python3 (venv) and, the first time, network access to PyPI for the plot's pinned matplotlib
# (scripts/requirements-soak.txt, into target/soak-venv); without it the SVG is drawn by hand. Exits 1 when an
# answer was unexpected, an acknowledged invoice is missing, the server did not stop cleanly, or a series grew.
set -euo pipefail
cd "$(dirname "$0")/.."

DURATION=${DURATION:-30m}
RATE=${RATE:-10}
SAMPLE=${SAMPLE:-60}
PROFILE=${KUATIA_SOAK_PROFILE:-release}
TARGET_DIR=${CARGO_TARGET_DIR:-target}
OUT=${KUATIA_SOAK_OUT:-$TARGET_DIR/soak}
VENV="$TARGET_DIR/soak-venv"
REQUIREMENTS=scripts/requirements-soak.txt

note() { printf '\n== %s\n' "$*"; }

if [ -n "${KUATIA_SOAK_BIN:-}" ]; then
  BIN=$KUATIA_SOAK_BIN
else
  note "building kuatia ($PROFILE profile)"
  if [ "$PROFILE" = debug ]; then
    cargo build -p kuatia-cli --bin kuatia
    BIN="$TARGET_DIR/debug/kuatia"
  else
    cargo build --profile "$PROFILE" -p kuatia-cli --bin kuatia
    BIN="$TARGET_DIR/$PROFILE/kuatia"
  fi
fi

# The plot's tools, reinstalled only when the requirements change.
PY=python3
stamp="$VENV/.requirements.sha256"
want=$(sha256sum "$REQUIREMENTS" | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  note "installing $REQUIREMENTS into $VENV"
  rm -rf "$VENV"
  if python3 -m venv "$VENV" &&
    "$VENV/bin/pip" install -q --disable-pip-version-check --no-input -r "$REQUIREMENTS"; then
    echo "$want" >"$stamp"
  else
    echo "soak: matplotlib not installed; the plot is drawn by hand" >&2
  fi
fi
[ -f "$stamp" ] && PY="$VENV/bin/python"

note "soak: $DURATION at $RATE requests/s, a sample every $SAMPLE s, into $OUT"
exec "$PY" scripts/soak.py --bin "$BIN" --profile "$PROFILE" --duration "$DURATION" --rate "$RATE" \
  --sample "$SAMPLE" --out "$OUT" "$@"
