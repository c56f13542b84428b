#!/usr/bin/env bash
# Peak memory of `kuatia archive` for a large month (issue 33; figures in docs/benchmarks.md): a real `kuatia serve`
# issues two sandbox invoices (one approved, one cancelled), then the store is filled with N copies of them under
# new ids and CDCs (SQLite, straight into the tables: issuing 100 000 invoices over HTTP would only measure the
# create), and `kuatia archive` of the month runs under `/usr/bin/time -v`. Prints N, members, seconds, peak RSS and
# the archive's size. Usage: scripts/archive-bench.sh [N ...] (default: 1000 10000 100000); the debug build unless
# KUATIA_BENCH_PROFILE=release (memory is what it measures; the time is the debug build's). A benchmark, not a test.
set -euo pipefail
cd "$(dirname "$0")/.."
TARGET_DIR="${CARGO_TARGET_DIR:-target}"
WORK="$TARGET_DIR/archive-bench"
PROFILE="${KUATIA_BENCH_PROFILE:-debug}"
counts=("$@")
((${#counts[@]})) || counts=(1000 10000 100000)

if [ "$PROFILE" = release ]; then cargo build -q --release -p kuatia-cli --locked; else cargo build -q -p kuatia-cli --locked; fi
KUATIA="$TARGET_DIR/$PROFILE/kuatia"

rm -rf "$WORK"
mkdir -p "$WORK"
TEMPLATE="$WORK/template"
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
BASE="http://127.0.0.1:$PORT"
KEY=$("$KUATIA" accounts create "Bench" --data "$TEMPLATE" | python3 -c 'import json,sys; print(json.load(sys.stdin)["sandbox_key"])')
ACCOUNT=$("$KUATIA" accounts list --data "$TEMPLATE" |
  python3 -c 'import json,sys; print([a["id"] for a in json.load(sys.stdin)["accounts"] if a["name"] == "Bench"][0])')
"$KUATIA" serve --addr "127.0.0.1:$PORT" --data "$TEMPLATE" >"$WORK/serve.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true; wait $SERVER 2>/dev/null || true' EXIT
for _ in $(seq 100); do curl -fsS "$BASE/v1/health" >/dev/null 2>&1 && break; sleep 0.1; done
post() {
  python3 -c 'import json,sys; d=json.load(open("examples/factura.json")); d["_simulate"]="approved"; print(json.dumps(d))' |
    curl -fsS -H "Authorization: Bearer $KEY" -H 'X-Environment: sandbox' -H 'Content-Type: application/json' \
      --data-binary @- "$BASE/v1/facturas" | python3 -c 'import json,sys; print(json.load(sys.stdin)["data"]["id"])'
}
post >/dev/null
CANCELLED=$(post)
curl -fsS -H "Authorization: Bearer $KEY" -H 'X-Environment: sandbox' -H 'Content-Type: application/json' \
  --data '{"motivo":"Error en los datos del receptor"}' "$BASE/v1/facturas/$CANCELLED/cancel" >/dev/null
kill $SERVER; wait $SERVER 2>/dev/null || true
MONTH=$(TZ=America/Asuncion date +%Y-%m)

printf '%8s %8s %9s %12s %12s\n' invoices members seconds peak_rss_kb zip_bytes
for n in "${counts[@]}"; do
  DATA="$WORK/data-$n"
  rm -rf "$DATA"; cp -r "$TEMPLATE" "$DATA"
  python3 - "$DATA/kuatia.sqlite3" "$n" <<'PY'
import json, sqlite3, sys
db, n = sys.argv[1], int(sys.argv[2])
c = sqlite3.connect(db)
rows = c.execute("SELECT i.seq, i.id, i.account_id, i.environment, i.status, i.created_at, i.cdc, i.numero, "
                 "i.receptor_ruc, i.tipo_documento, i.json, x.xml FROM invoices i JOIN invoice_xml x ON x.seq = i.seq "
                 "WHERE i.status IN ('approved', 'cancelled') ORDER BY i.seq").fetchall()
have = len(rows)
with c:
    for k in range(n - have):
        seq, id_, acct, env, status, created, cdc, numero, ruc, tipo, js, xml = rows[k % have]
        new_id = f"fact_bench{k:012d}"
        new_cdc = cdc[:34] + f"{k:010d}"
        rec = json.loads(js)
        rec["id"], rec["cdc"] = new_id, new_cdc
        cur = c.execute("INSERT INTO invoices (id, account_id, environment, in_flight, sifen_due_at, status, created_at, "
                        "cdc, numero, receptor_ruc, tipo_documento, json) VALUES (?,?,?,0,NULL,?,?,?,?,?,?,?)",
                        (new_id, acct, env, status, created, new_cdc, numero, ruc, tipo, json.dumps(rec)))
        c.execute("INSERT INTO invoice_xml (seq, xml) VALUES (?, ?)", (cur.lastrowid, xml))
c.close()
PY
  out="$WORK/archive-$n.zip"
  /usr/bin/time -v "$KUATIA" archive --data "$DATA" --account "$ACCOUNT" --month "$MONTH" --out "$out" \
    >"$WORK/archive-$n.json" 2>"$WORK/time-$n.txt"
  members=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["members"])' "$WORK/archive-$n.json")
  rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$WORK/time-$n.txt")
  secs=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$WORK/time-$n.txt")
  printf '%8s %8s %9s %12s %12s\n' "$n" "$members" "$secs" "$rss" "$(stat -c %s "$out")"
  [ -n "${KUATIA_BENCH_KEEP:-}" ] || rm -rf "$DATA" "$out"
done
