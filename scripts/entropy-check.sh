#!/usr/bin/env bash
# Fails if a built kuatia binary still carries aws-lc's CPU-jitter entropy source (the jent_* functions of
# jitterentropy). .cargo/config.toml builds aws-lc with AWS_LC_SYS_NO_JITTER_ENTROPY=1 (OS entropy only): the jitter
# source cost ~45 ms of CPU in every process and aborts the process when its start-up health test fails
# (aws/aws-lc-rs#1072). Checks the `kuatia` CLI, libkuatia.so and libkuatia.a of every profile built under target/
# (scripts/test.sh runs it after the tests, which build the debug ones); at least the CLI and the two libraries of
# one profile must be there. A positive control keeps the check honest: each file must show aws-lc's RAND_bytes, so
# a stripped or unrelated file cannot pass for a clean one. Needs nm (binutils), or falls back to grep on the bytes.
set -euo pipefail
cd "$(dirname "$0")/.."
TARGET_DIR="$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')"

count() { # count <file> <pattern>: symbols (nm) or byte matches (grep) naming the pattern
  if command -v nm >/dev/null 2>&1; then
    { nm -A "$1" 2>/dev/null || true; } | grep -c -- "$2" || true
  else
    grep -a -o -- "$2" "$1" | wc -l
  fi
}

checked=0
failed=0
# With arguments: exactly those files (e.g. the library an sdist built from source); else every profile under target/.
files=("$@")
if [ "${#files[@]}" -eq 0 ]; then
  for profile in debug release; do
    for name in kuatia libkuatia.so libkuatia.a; do
      files+=("$TARGET_DIR/$profile/$name")
    done
  done
fi
for f in "${files[@]}"; do
  profile="$(basename "$(dirname "$f")")"
  name="$(basename "$f")"
  {
    if [ "$#" -gt 0 ] && [ ! -f "$f" ]; then
      echo "entropy-check: $f does not exist" >&2
      failed=1
      continue
    fi
    [ -f "$f" ] || continue
    jent="$(count "$f" 'jent_')"
    rand="$(count "$f" 'RAND_bytes')"
    if [ "$rand" -eq 0 ]; then
      echo "entropy-check: $f shows no aws-lc RAND_bytes symbol; cannot tell whether jitter entropy is in" >&2
      failed=1
    elif [ "$jent" -ne 0 ]; then
      echo "entropy-check: $f contains $jent CPU-jitter entropy symbols (jent_*): aws-lc was built without" \
        "AWS_LC_SYS_NO_JITTER_ENTROPY=1 (see .cargo/config.toml)" >&2
      failed=1
    else
      echo "ok: $profile/$name has no jent_* symbols ($rand RAND_bytes)"
    fi
    checked=$((checked + 1))
  }
done
[ "$#" -gt 0 ] && exit "$failed"
[ "$checked" -ge 3 ] || { echo "entropy-check: expected the kuatia CLI, libkuatia.so and libkuatia.a under $TARGET_DIR" >&2; exit 1; }
exit "$failed"
