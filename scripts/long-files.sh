#!/usr/bin/env bash
# Fails when a tracked, hand-written source file is over 900 lines (issue 30, "files by concern"). Exceptions live in
# one place, tools/long-files.allow: generated files for good, files being split for now (a `pending` line whose
# file is gone or short again fails too, so the list only shrinks).
set -euo pipefail
cd "$(dirname "$0")/.."
MAX=900
ALLOW=tools/long-files.allow
declare -A generated=() pending=()
while read -r kind path rest; do
  case "$kind" in
    '' | '#'*) continue ;;
    generated) generated[$path]=1 ;;
    pending) pending[$path]=1 ;;
    *) echo "$ALLOW: unknown kind '$kind' (generated or pending)" >&2; exit 1 ;;
  esac
  [ -z "${rest:-}" ] || { echo "$ALLOW: one path per line: $kind $path $rest" >&2; exit 1; }
done <"$ALLOW"

bad=0
while IFS= read -r -d '' f; do
  [ -z "${generated[$f]:-}" ] || continue
  n=$(wc -l <"$f")
  if [ "$n" -gt "$MAX" ] && [ -z "${pending[$f]:-}" ]; then
    echo "$f: $n lines (over $MAX): split it by concern (generated? list it in $ALLOW)" >&2
    bad=1
  fi
done < <(git ls-files -z -- '*.rs' '*.c' '*.h' '*.py' '*.go' '*.java' '*.php' '*.mjs' '*.ts')

for f in "${!pending[@]}"; do
  if [ ! -f "$f" ] || [ "$(wc -l <"$f")" -le "$MAX" ]; then
    echo "$ALLOW: $f is no longer over $MAX lines (or gone): remove its line" >&2
    bad=1
  fi
done
for f in "${!generated[@]}"; do
  [ -f "$f" ] || { echo "$ALLOW: generated file $f is gone: remove its line" >&2; bad=1; }
done
exit "$bad"
