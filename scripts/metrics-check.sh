#!/usr/bin/env bash
# `GET /metrics` of `kuatia serve` (issue 33): scripts/metrics-check.py starts a real server with the simulated SIFEN
# and its metrics listener (`--metrics-addr`), makes a known set of requests and checks that the counters, the
# latency histogram and the stored figures (invoices by state, the oldest pending invoice, undelivered webhooks) moved
# exactly as they did, parsing both text formats with the Prometheus project's Python client. Runs twice: on SQLite
# in a fresh data directory, then on PostgreSQL (a throwaway server from scripts/pg-test.sh), so the store query
# behind the stored figures is checked on both stores.
# Idempotent: the pinned parser (scripts/requirements-metrics.txt) goes into a virtual environment under target/,
# made again only when the requirements change. Needs python3 (venv) and PostgreSQL (Debian's postgresql, in .ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS
TARGET_DIR="${CARGO_TARGET_DIR:-target}"
VENV="$TARGET_DIR/metrics-venv"
WORK="$TARGET_DIR/metrics-check"
REQUIREMENTS=scripts/requirements-metrics.txt

note() { printf -- '--> %s\n' "$*"; }

if ! cmp -s "$REQUIREMENTS" "$VENV/requirements-metrics.txt"; then
  note "installing $(grep -E '^prometheus-client==' "$REQUIREMENTS") into $VENV"
  rm -rf "$VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check --no-input -r "$REQUIREMENTS"
  cp "$REQUIREMENTS" "$VENV/requirements-metrics.txt"
fi

# The kuatia CLI (debug): scripts/test.sh has already built the whole workspace the way its tests do.
if [ "${KUATIA_DEBUG_BUILD:-}" = workspace ]; then cargo test -q --workspace --no-run --locked; else cargo build -q -p kuatia-cli --locked; fi
KUATIA="$(pwd)/$TARGET_DIR/debug/kuatia"
PY="$(pwd)/$VENV/bin/python"

rm -rf "$WORK"
mkdir -p "$WORK/sqlite" "$WORK/postgres"
note "kuatia serve on SQLite: /metrics after a known set of requests"
"$PY" scripts/metrics-check.py "$KUATIA" "$WORK/sqlite"

note "kuatia serve on PostgreSQL: the same"
# pg-test.sh gives a fresh server whose `postgres` database is empty: the server's first start makes its account.
# shellcheck disable=SC2016
bash scripts/pg-test.sh bash -c '"$1" scripts/metrics-check.py "$2" "$3" --database "$KUATIA_TEST_DATABASE_URL" \
  --database-ca "$KUATIA_TEST_DATABASE_CA"' _ "$PY" "$KUATIA" "$WORK/postgres"
echo "metrics check: $(( SECONDS - started )) s"
