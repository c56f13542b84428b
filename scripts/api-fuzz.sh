#!/usr/bin/env bash
# The /v1 API against its OpenAPI document (issue 30): validates docs/openapi.json with openapi-spec-validator, starts
# a real `kuatia serve` on a loopback port with a fresh data directory and a sandbox key, checks that it serves the
# committed document at /v1/openapi.json, and runs Schemathesis against it: positive and negative data, at most
# KUATIA_API_FUZZ_EXAMPLES (20) cases per operation and phase, a fixed seed, the whole run under a timeout. Checks:
# no 5xx, every answer conforms to the document (status, content type, headers, schema), negative data refused,
# 405 with `Allow` for other methods, no key refused; then every status the document lists for an operation must
# have been answered to it at least once, and no other (read from the server's request log, scripts/api-fuzz.py).
# With one seed and one document the run is the same every time (the same requests, the same statuses); an unreadable
# body (400), which generated cases reach only by chance, is sent to each operation that reads one after the run; any
# other status a change of the document loses may need another seed (KUATIA_API_FUZZ_SEED) or an example: the status
# table printed at the end shows what was answered.
# Idempotent: the pinned tools (scripts/requirements-api.txt) go into a virtual environment under target/, made
# again only when the requirements change. Needs python3 (venv), curl and network access to PyPI the first time.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS
TARGET_DIR="${CARGO_TARGET_DIR:-target}"
VENV="$TARGET_DIR/api-venv"
WORK="$TARGET_DIR/api-fuzz"
REQUIREMENTS=scripts/requirements-api.txt
EXAMPLES="${KUATIA_API_FUZZ_EXAMPLES:-20}"
SEED="${KUATIA_API_FUZZ_SEED:-30}"

note() { printf -- '--> %s\n' "$*"; }

if ! cmp -s "$REQUIREMENTS" "$VENV/requirements-api.txt"; then
  note "installing $(grep -E '^(schemathesis|openapi-spec-validator)==' "$REQUIREMENTS" | tr '\n' ' ')into $VENV"
  rm -rf "$VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check --no-input -r "$REQUIREMENTS"
  cp "$REQUIREMENTS" "$VENV/requirements-api.txt"
fi

note "openapi-spec-validator (OpenAPI 3.1)"
"$VENV/bin/openapi-spec-validator" --schema 3.1 docs/openapi.json

# The kuatia CLI (debug): scripts/test.sh has already built the whole workspace the way its tests do
# (KUATIA_DEBUG_BUILD=workspace; `-p kuatia-cli` alone would compile shared crates again with other features).
if [ "${KUATIA_DEBUG_BUILD:-}" = workspace ]; then cargo test -q --workspace --no-run --locked; else cargo build -q -p kuatia-cli --locked; fi
KUATIA="$TARGET_DIR/debug/kuatia"

rm -rf "$WORK"
mkdir -p "$WORK"
DATA="$WORK/data"
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
BASE="http://127.0.0.1:$PORT"
KUATIA_API_KEY=$("$KUATIA" accounts create "API fuzz" --data "$DATA" |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["sandbox_key"])')
export KUATIA_API_KEY
# The simulated SIFEN never moves an invoice by itself during the run (an hour): states change only by the
# requests, so the run is the same every time. Webhook deliveries fail at once (nothing listens at the seeded URL).
RUST_LOG=info "$KUATIA" serve --addr "127.0.0.1:$PORT" --data "$DATA" --sandbox-send-after 3600 \
  --sandbox-answer-after 3600 --allow-private-webhooks --insecure-webhooks-http >"$WORK/serve.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true; wait $SERVER 2>/dev/null || true' EXIT
for _ in $(seq 100); do
  curl -fsS "$BASE/v1/health" >/dev/null 2>&1 && break
  sleep 0.1
done

note "GET /v1/openapi.json is docs/openapi.json"
curl -fsS "$BASE/v1/openapi.json" -o "$WORK/served.json"
cmp "$WORK/served.json" docs/openapi.json

# Resources for the operations on one id: random ids find only 404s. Webhook `hooked` is registered first, so the
# approved invoices give it a delivery to redeliver; `doomed` is for the deletion; `cancelled` for the cancellation
# (200 once, 409 after); `pending` never becomes approved (409 for the KuDE and the cancellation).
call() { # METHOD PATH [BODY] -> the answer's data.id
  curl -fsS -X "$1" "$BASE$2" -H "Authorization: Bearer $KUATIA_API_KEY" -H "X-Environment: sandbox" \
    -H "Content-Type: application/json" ${3:+--data "$3"} |
    python3 -c 'import json,sys; d=json.load(sys.stdin)["data"]; print((d[0] if isinstance(d, list) else d)["id"])'
}
hook='{"url": "https://127.0.0.1:9/kuatia", "events": ["factura.approved", "factura.cancelled"]}'
invoice() {
  printf '{"tipo_documento": 1, "_simulate": "%s", "receptor": {"ruc": "80069563-1", "razon_social": "Cliente"},
    "items": [{"descripcion": "Servicio", "cantidad": 1, "precio_unitario": 110000, "iva": 10}]}' "$1"
}
hooked=$(call POST /v1/webhooks "$hook")
doomed=$(call POST /v1/webhooks "$hook")
approved=$(call POST /v1/facturas "$(invoice approved)")
cancelled=$(call POST /v1/facturas "$(invoice approved)")
pending=$(call POST /v1/facturas "$(invoice pending)")
delivery=$(call GET "/v1/webhooks/$hooked/deliveries")
cat >"$WORK/ids.json" <<JSON
{
  "invoice": {"id": ["$approved", "$pending"]},
  "kude": {"id": ["$approved", "$pending"]},
  "signedXml": {"id": ["$approved"]},
  "invoiceEmails": {"id": ["$approved"]},
  "resendEmail": {"id": ["$approved", "$pending"]},
  "cancelInvoice": {"id": ["$cancelled", "$pending"]},
  "webhook": {"id": ["$hooked"]},
  "rotateWebhook": {"id": ["$hooked"]},
  "deliveries": {"id": ["$hooked"]},
  "redeliver": {"id": ["$hooked"], "delivery_id": ["$delivery"]},
  "deleteWebhook": {"id": ["$doomed"]}
}
JSON
python3 scripts/api-fuzz.py prepare docs/openapi.json "$WORK/ids.json" "$WORK/openapi.run.json"
seeded=$(wc -l <"$WORK/serve.log")

note "Schemathesis against kuatia serve ($BASE): at most $EXAMPLES cases per operation and phase, seed $SEED"
set +e
timeout 600 "$VENV/bin/schemathesis" --config-file scripts/schemathesis.toml run "$WORK/openapi.run.json" \
  --url "$BASE" --checks all --mode all --max-examples "$EXAMPLES" --seed "$SEED" --workers 1 \
  --phases examples,coverage,fuzzing --no-color --report junit --report-dir "$WORK/report" \
  2>&1 | tee "$WORK/schemathesis.log"
rc=${PIPESTATUS[0]}
set -e
[ "$rc" -eq 0 ] || { echo "schemathesis failed (exit $rc; $WORK/schemathesis.log, server log $WORK/serve.log)" >&2; exit 1; }

# A body that is not JSON (400 MALFORMED_JSON) is a status Schemathesis reaches only by chance (its negative bodies are
# JSON of the wrong shape: 422), so a change of the document could lose it from one seed's run: one unreadable body to
# each operation whose body can be unreadable, checked here, and counted with the fuzzer's requests below.
note "an unreadable body to every operation that documents its 400: MALFORMED_JSON, in the reader's language"
for path in "/v1/facturas" "/v1/facturas/$cancelled/cancel" "/v1/facturas/$approved/email" "/v1/webhooks"; do
  answer=$(curl -sS -X POST "$BASE$path" -H "Authorization: Bearer $KUATIA_API_KEY" -H "X-Environment: sandbox" \
    -H "Content-Type: application/json" -H "Accept-Language: en" --data '{"unreadable' -D "$WORK/probe.headers" \
    -w '\n%{http_code}')
  status=${answer##*$'\n'}
  grep -qi '^content-language: en' "$WORK/probe.headers" || { echo "POST $path: no Content-Language: en" >&2; exit 1; }
  case "$status:$answer" in
    400:*'"code":"MALFORMED_JSON"'*) ;;
    *) echo "POST $path with an unreadable body answered $answer" >&2; exit 1 ;;
  esac
done

note "every documented status was answered"
tail -n "+$((seeded + 1))" "$WORK/serve.log" >"$WORK/run.log"
python3 scripts/api-fuzz.py statuses docs/openapi.json "$WORK/run.log"
echo "api fuzz: $(( SECONDS - started )) s"
