#!/usr/bin/env bash
# The Python environment of the e-mail tests (issue 36): aiosmtpd, pinned in tests/smtp/requirements.txt, in a virtual
# environment under target/, made again only when the requirements change; prints its python. Idempotent; the e-mail
# tests run it themselves (server/tests/email.rs, cli/tests/cli_email.rs), so plain `cargo test` works too. Needs
# python3 (venv) and network access to PyPI the first time.
set -euo pipefail
cd "$(dirname "$0")/.."
TARGET_DIR="${CARGO_TARGET_DIR:-target}"
VENV="$TARGET_DIR/smtp-venv"
REQUIREMENTS=tests/smtp/requirements.txt
(
  # One installer at a time (test binaries run in parallel).
  exec 9>"$TARGET_DIR/.smtp-venv.lock"
  flock 9
  if ! cmp -s "$REQUIREMENTS" "$VENV/requirements.txt"; then
    rm -rf "$VENV"
    python3 -m venv "$VENV" >&2
    "$VENV/bin/pip" install -q --disable-pip-version-check --no-input -r "$REQUIREMENTS" >&2
    cp "$REQUIREMENTS" "$VENV/requirements.txt"
  fi
)
echo "$(cd "$VENV" && pwd)/bin/python"
