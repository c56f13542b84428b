#!/usr/bin/env bash
# The full multi-node run of issue 18 (outside the test command, which runs 600 creates): three `kuatia serve` nodes
# over one PostgreSQL, 10 000 creates from 64 clients, one node SIGKILLed and restarted, the fake SIFEN and a webhook
# receiver; then the load bench (benches/load.rs, optimized build) for SQLite on one node and PostgreSQL on one and
# three nodes. KUATIA_NODES_CREATES and KUATIA_LOAD_CREATES change the sizes.
#
#   bash scripts/nodes-load.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export KUATIA_NODES_CREATES="${KUATIA_NODES_CREATES:-10000}"
export KUATIA_LOAD_CREATES="${KUATIA_LOAD_CREATES:-10000}"
export KUATIA_LOAD_DB_POOL="${KUATIA_LOAD_DB_POOL:-4}"

cargo build -p kuatia-cli --locked
bash scripts/pg-test.sh cargo test -p kuatia-server --locked --test nodes -- --nocapture

report_dir="target/load-reports"
mkdir -p "$report_dir"
cargo bench -p kuatia-server --locked --bench load
cp target/load-report.json "$report_dir/sqlite-1.json"
for nodes in 1 3; do
  bash scripts/pg-test.sh bash -c '
    db="kuatia_load_$$"
    psql -q "$KUATIA_TEST_DATABASE_URL" -c "CREATE DATABASE $db"
    KUATIA_LOAD_DATABASE="${KUATIA_TEST_DATABASE_URL%/*}/$db" KUATIA_LOAD_NODES='"$nodes"' \
      cargo bench -p kuatia-server --locked --bench load'
  cp target/load-report.json "$report_dir/postgres-$nodes-pool$KUATIA_LOAD_DB_POOL.json"
done
for f in "$report_dir"/*.json; do
  python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); print(sys.argv[1], r["creates_per_s"], "creates/s, p50", r["p50_ms"], "ms, p99", r["p99_ms"], "ms, lost", r["lost"], "duplicated", r["duplicated"], "loadavg", r["machine"]["loadavg_before"])' "$f"
done
