#!/usr/bin/env bash
# Load of `kuatia serve` by an external HTTP load generator, wrk (Debian's package, installed here when missing), so
# the server's figure does not depend on our own client (issue 15). Builds target/release/kuatia, starts it on a free
# loopback port with a fresh data directory and runs scripts/wrk/run.py: creates (wrk -c64, a unique Idempotency-Key
# each; every stored invoice is then listed and checked against the 201s wrk saw: 0 lost, 0 duplicated) and status
# lookups (GET /v1/facturas/{id}). Writes target/wrk-report.json; exits 1 on any loss, duplicate or unexpected status.
# Usage: bash scripts/wrk-load.sh [--quick] [run.py options: --threads N --connections N --create-seconds N
#        --lookup-seconds N]   (default: 20 s of creates and 10 s of lookups; --quick: 5 s each)
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v wrk >/dev/null; then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends wrk >/dev/null
fi
args=()
if [ "${1:-}" = "--quick" ]; then
  shift
  args=(--create-seconds 5 --lookup-seconds 5)
fi
cargo build -q --release --locked -p kuatia-cli
exec python3 scripts/wrk/run.py "${args[@]}" "$@"
