#!/usr/bin/env bash
# Rewrites the Rust paths of the lift of `core::api` into the `kuatia-service` crate (issue 30, step 1).
#
# Idempotent: run it again after merging a branch that still names the old paths (a hunk written against
# core/src/api/*.rs lands in service/src/*.rs through git's rename detection, with its old `crate::…` paths).
#   - every .rs of the workspace: `kuatia_core::api::X` -> `kuatia_service::X`, `kuatia_core::api` -> `kuatia_service`
#     (in ffi/src/service.rs, whose C type is also named `kuatia_service`, `use ::kuatia_service::…`)
#   - inside service/ only: `crate::api::X` -> `crate::X`, and the domain modules of kuatia-core
#     (`crate::issue::…`, `crate::Finding`, …) -> `kuatia_core::…`. The service's own modules (`crate::store`,
#     `crate::webhook`, `crate::document`, …) are left alone: `document` here is the service's cache, not core's.
#   - README.md and docs/*.md (not docs/plans): `core::api::X` -> `kuatia_service::X`, `core::api` -> `kuatia-service`,
#     and the moved files' paths (core/src/api/ -> service/src/, the api-only tests and bench -> service/).
# Not covered (none exist today; fix by hand if a branch adds one): `use crate::{issue, …}` groups naming a domain
# module inside braces under service/, and `use kuatia_core::{api, …}` groups elsewhere.
# Usage: tools/lift-imports.sh [repo root, default: the script's repository]
set -euo pipefail
root="${1:-$(cd "$(dirname "$0")/.." && pwd)}"
cd "$root"

domain='cdc|code|codes|de|error|fmt|geo|invoice|issue|kude|lifecycle|numbering|profile|qr|ruc|shape|sifen|sign|totals|validate|xml|Finding|Findings'

# Every tracked or new .rs file outside build output.
mapfile -t all < <(git ls-files --cached --others --exclude-standard -- '*.rs' | grep -v -E '(^|/)target/')
for f in "${all[@]}"; do
    [ -f "$f" ] || continue
    sed -i -E \
        -e 's/\bkuatia_core::api::/kuatia_service::/g' \
        -e 's/\bkuatia_core::api\b/kuatia_service/g' \
        "$f"
done

# ffi/src/service.rs defines the C type `kuatia_service`: a `use` of the crate of that name must start with `::`.
if [ -f ffi/src/service.rs ]; then
    sed -i -E 's/^use kuatia_service::/use ::kuatia_service::/' ffi/src/service.rs
fi

mapfile -t service < <(git ls-files --cached --others --exclude-standard -- 'service/*.rs')
for f in "${service[@]}"; do
    [ -f "$f" ] || continue
    sed -i -E \
        -e 's/\bcrate::api::/crate::/g' \
        -e 's/\bcrate::api\b/crate/g' \
        -e "s/\bcrate::(${domain})\b/kuatia_core::\1/g" \
        "$f"
done

mapfile -t docs < <(git ls-files -- README.md 'docs/*.md' | grep -v '^docs/plans/')
for f in "${docs[@]}"; do
    sed -i -E \
        -e 's/\bkuatia_core::api::/kuatia_service::/g' \
        -e 's/\bkuatia_core::api\b/kuatia_service/g' \
        -e 's/\bcore::api::/kuatia_service::/g' \
        -e 's/\bcore::api\b/kuatia-service/g' \
        -e 's#\bcore/src/api/mod\.rs#service/src/lib.rs#g' \
        -e 's#\bcore/src/api/#service/src/#g' \
        -e 's#\bcore/tests/(api|api_golden|panel|secrets|timbrado|transmit)\.rs#service/tests/\1.rs#g' \
        -e 's#\bcore/tests/common/(host|fake_sifen)\.rs#service/tests/common/\1.rs#g' \
        -e 's#\bcore/benches/api\.rs#service/benches/api.rs#g' \
        "$f"
done
