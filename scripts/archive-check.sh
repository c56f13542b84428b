#!/usr/bin/env bash
# The month's archive (issue 33) against a real `kuatia serve`: a fresh data directory and a sandbox key, invoices
# issued over HTTP, then `kuatia archive` checked by `kuatia verify`, Python's zipfile and csv, `unzip -t`, `xmlsec1
# --verify` (sandbox certificate) on every XML and `qpdf --check` on every PDF (scripts/archive-check.py says what it
# asserts). Then the same over PostgreSQL (scripts/pg-test.sh; KUATIA_DATABASE_URL makes `kuatia serve`, `accounts` and
# `archive` use it): both stores must give the same archive. Needs python3 (standard library only), curl, unzip,
# xmlsec1, qpdf and postgresql (.ci/run installs them).
set -euo pipefail
cd "$(dirname "$0")/.."
TARGET_DIR="${CARGO_TARGET_DIR:-target}"
WORK="$TARGET_DIR/archive-check"

# The kuatia CLI (debug): scripts/test.sh has already built the whole workspace the way its tests do.
if [ "${KUATIA_DEBUG_BUILD:-}" = workspace ]; then cargo test -q --workspace --no-run --locked; else cargo build -q -p kuatia-cli --locked; fi
KUATIA="$TARGET_DIR/debug/kuatia"

rm -rf "$WORK"
mkdir -p "$WORK"
DATA="$WORK/data"
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
BASE="http://127.0.0.1:$PORT"
KEY=$("$KUATIA" accounts create "Archivo del mes" --data "$DATA" |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["sandbox_key"])')
ACCOUNT=$("$KUATIA" accounts list --data "$DATA" |
  python3 -c 'import json,sys; print([a["id"] for a in json.load(sys.stdin)["accounts"] if a["name"] == "Archivo del mes"][0])')
# The simulated SIFEN answers after an hour: an invoice created without `_simulate` stays pending during the run.
"$KUATIA" serve --addr "127.0.0.1:$PORT" --data "$DATA" --sandbox-send-after 3600 --sandbox-answer-after 3600 \
  >"$WORK/serve.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true; wait $SERVER 2>/dev/null || true' EXIT
for _ in $(seq 100); do
  curl -fsS "$BASE/v1/health" >/dev/null 2>&1 && break
  sleep 0.1
done
python3 scripts/archive-check.py "$KUATIA" "$BASE" "$KEY" "$DATA" "$WORK" tests/fixtures/certs/sandbox.cert.pem "$ACCOUNT"
kill $SERVER; wait $SERVER 2>/dev/null || true
if [ -z "${KUATIA_DATABASE_URL:-}" ]; then
  echo "--> the same over PostgreSQL"
  bash scripts/pg-test.sh bash -c 'KUATIA_DATABASE_URL=$KUATIA_TEST_DATABASE_URL \
    KUATIA_DATABASE_CA=$KUATIA_TEST_DATABASE_CA bash scripts/archive-check.sh'
fi
