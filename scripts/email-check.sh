#!/usr/bin/env bash
# E-mail to the buyer against a real SMTP server on loopback (issue 36): aiosmtpd, pinned in tests/smtp/requirements.txt,
# in a virtual environment under target/ (scripts/smtp-venv.sh, idempotent), then the tests that start it:
# server/tests/email.rs (one message per approval, parsed by Python's email package, its KuDE through qpdf --check and
# its XML through xmlsec1 --verify; 451 then 250 = one delivery; 550 = failed with the reason),
# server/tests/email_accounts.rs (an account's own SMTP server requiring AUTH, the panel's test button) and
# cli/tests/cli_email.rs (`kuatia serve` killed with SIGKILL mid-send: an acknowledged message is never sent again).
# Needs python3 (venv), qpdf and xmlsec1 (.ci/run), and network access to PyPI the first time.
set -euo pipefail
cd "$(dirname "$0")/.."
python="$(bash scripts/smtp-venv.sh)"
echo "--> $("$python" -c 'import aiosmtpd; print("aiosmtpd", aiosmtpd.__version__)')"
# The workspace's feature resolution (scripts/test.sh built it once): no crate compiled again for these two binaries.
cargo test -q --workspace --locked --test email --test email_accounts --test cli_email
