#!/usr/bin/env bash
# A stranger's clone: the committed HEAD, cloned into a fresh temporary folder with nothing beside it (no
# ../shared, no untracked files such as an old kuatia-out/), must pass the core's tests (`cargo test -p kuatia-core
# --locked`, the suite that reads the official XSDs, WSDLs and the DNIT table). The vendored reference files are
# checked against the SHA-256 sums of reference/sifen/SOURCE.md first. The temporary folder is removed on exit.
#
#   bash scripts/bare-clone-check.sh
#
# The build goes to target/bare-clone (CARGO_TARGET_DIR, kept between runs): the clone's workspace crates hash like
# the checkout's, so sharing target/ would make each build overwrite the other's artefacts and leave cargo thinking
# stale files fresh. Uncommitted changes are not in the clone (a note says so): commit first to check them.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
say() { printf 'bare-clone: %s\n' "$*"; }
die() { printf 'bare-clone: FAILED: %s\n' "$*" >&2; exit 1; }

head="$(git -C "$ROOT" rev-parse HEAD)"
[ -z "$(git -C "$ROOT" status --porcelain --untracked-files=no)" ] ||
  say "note: uncommitted changes are not part of this check (it tests the committed HEAD $head)"

parent="$(mktemp -d "${TMPDIR:-/tmp}/kuatia-bare-clone.XXXXXX")"
trap 'rm -rf "$parent"' EXIT
clone="$parent/kuatia"
git clone --quiet --no-checkout "$ROOT" "$clone"
# HEAD of the checkout (a branch, a worktree's branch or a detached commit), whatever the clone's default branch.
git -C "$clone" fetch --quiet "$ROOT" HEAD
git -C "$clone" -c advice.detachedHead=false checkout --quiet --detach FETCH_HEAD
[ "$(git -C "$clone" rev-parse HEAD)" = "$head" ] || die "the clone is not at $head"
[ ! -e "$parent/shared" ] || die "$parent/shared exists"
say "cloned $head into $clone (nothing beside it)"

# The vendored official files are the published bytes (SOURCE.md lists each file's SHA-256).
(cd "$clone/reference/sifen" &&
  sed -n 's/^| `\([^`]*\)` | .* | `\([0-9a-f]\{64\}\)` |$/\2  \1/p' SOURCE.md >"$parent/sums" &&
  [ "$(wc -l <"$parent/sums")" -gt 0 ] && sha256sum --quiet -c "$parent/sums") ||
  die "reference/sifen does not match the SHA-256 sums of its SOURCE.md"
say "reference/sifen: $(wc -l <"$parent/sums") files match SOURCE.md"

# No file of the clone may read from outside it: no path into a sibling shared/ folder or this machine's /work/
# (the advisory snapshot of scripts/reliability.sh, optional, is the one exception; Markdown may mention them).
if hits="$(cd "$clone" && git grep -n -E '\.\./shared/|/work/' -- ':!*.md' ':!scripts/reliability.sh' ':!deny.toml' \
  ':!scripts/bare-clone-check.sh')"; then
  die "files point outside the repository:"$'\n'"$hits"
fi

export CARGO_TARGET_DIR="${KUATIA_BARE_CLONE_TARGET:-$ROOT/target/bare-clone}"
cd "$clone"
if ! cargo test -p kuatia-core --locked; then
  die "cargo test -p kuatia-core failed in a clone without ../shared (log above)"
fi
say "OK: cargo test -p kuatia-core --locked passes in a bare clone"
