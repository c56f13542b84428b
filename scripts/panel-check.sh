#!/usr/bin/env bash
# The account panel in a real browser (issue 17): starts `kuatia serve` on a loopback port with a fresh data
# directory, prints a one-time sign-in link with `kuatia accounts panel-login`, and walks a new issuer through the
# panel in Debian's headless Chromium driven by playwright-core (pinned in tests/panel/package-lock.json).
# Screenshots of each page: target/panel-screenshots/.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$(date +%s)
if ! command -v chromium >/dev/null; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium
fi
[ -d tests/panel/node_modules/playwright-core ] ||
  (cd tests/panel && npm ci --no-audit --no-fund --loglevel=error)
# The kuatia CLI (debug): scripts/test.sh has already built the whole workspace the way its tests do
# (KUATIA_DEBUG_BUILD=workspace; `-p kuatia-cli` alone would compile 91 crates again with other features).
if [ "${KUATIA_DEBUG_BUILD:-}" = workspace ]; then cargo test -q --workspace --no-run --locked; else cargo build -q -p kuatia-cli --locked; fi
KUATIA=target/debug/kuatia
DATA=$(mktemp -d)
SHOTS=target/panel-screenshots
rm -rf "$SHOTS"
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
BASE="http://127.0.0.1:$PORT"
ACCOUNT=$("$KUATIA" accounts create "Estudio Contable Demo" --data "$DATA" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
"$KUATIA" serve --addr "127.0.0.1:$PORT" --data "$DATA" --sandbox-send-after 1 --sandbox-answer-after 2 --tick-ms 200 \
  --allow-private-webhooks --insecure-webhooks-http >"$DATA/serve.out" 2>"$DATA/serve.err" &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true; wait $SERVER 2>/dev/null || true; rm -rf "$DATA"' EXIT
for _ in $(seq 100); do
  curl -fsS "$BASE/v1/health" >/dev/null 2>&1 && break
  sleep 0.1
done
LINK=$("$KUATIA" accounts panel-login "Estudio Contable Demo" --base-url "$BASE" --data "$DATA" |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["link"])')
case "$LINK" in "$BASE/panel/entrar?token="*) ;; *) echo "unexpected link: $LINK" >&2; exit 1 ;; esac
node tests/panel/walk.mjs "$BASE" "$LINK" "$SHOTS" "$PWD"
echo "panel check: account $ACCOUNT, $(ls "$SHOTS" | wc -l) screenshots, $(( $(date +%s) - started )) s"
