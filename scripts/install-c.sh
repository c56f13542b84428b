#!/usr/bin/env bash
# Installs the C library under a prefix, laid out as cargo-c would (docs/c.md):
#
#   PREFIX/include/kuatia.h
#   PREFIX/lib/libkuatia.so.X.Y.Z       soname libkuatia.so.ABI (ABI = MAJOR, or 0.MINOR before 1.0)
#   PREFIX/lib/libkuatia.so.ABI -> libkuatia.so.X.Y.Z,  PREFIX/lib/libkuatia.so -> libkuatia.so.ABI
#   PREFIX/lib/libkuatia.a
#   PREFIX/lib/pkgconfig/kuatia.pc      (Libs.private: the system libraries a static link needs)
#
#   bash scripts/install-c.sh --prefix /usr/local [--libdir lib] [--destdir DIR]
#
# Builds the release library once (`cargo rustc -p kuatia-ffi --release` with the soname as a link argument), then
# copies; running it twice gives the same tree. Why not cargo-c: `cargo install cargo-c` compiles cargo itself
# (~400 crates, ~15 minutes on the 2-core CI machine) to do what the twenty lines below do; the layout, soname rule
# and .pc are cargo-c's, so switching later changes nothing for users.
#
#   KUATIA_INSTALL_NO_BUILD=1   install the existing target/release build (scripts/packages-check.sh builds first)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"

PREFIX="" LIBDIR_NAME="lib" DESTDIR="${DESTDIR:-}"
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) PREFIX="$2"; shift 2 ;;
    --prefix=*) PREFIX="${1#*=}"; shift ;;
    --libdir) LIBDIR_NAME="$2"; shift 2 ;;
    --destdir) DESTDIR="$2"; shift 2 ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    *) echo "install-c: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
[ -n "$PREFIX" ] || { echo "install-c: --prefix is required" >&2; exit 2; }
case "$PREFIX" in /*) ;; *) PREFIX="$PWD/$PREFIX" ;; esac

VERSION="$(sed -n 's/^#define KUATIA_VERSION "\(.*\)"$/\1/p' include/kuatia.h)"
ABI="$(sed -n 's/^#define KUATIA_ABI_VERSION "\(.*\)"$/\1/p' include/kuatia.h)"
[ -n "$VERSION" ] && [ -n "$ABI" ] || { echo "install-c: no KUATIA_VERSION / KUATIA_ABI_VERSION in include/kuatia.h" >&2; exit 1; }
SONAME="libkuatia.so.$ABI"
TARGET_DIR="$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')"
BUILD="$TARGET_DIR/release"

if [ -z "${KUATIA_INSTALL_NO_BUILD:-}" ]; then
  # The soname is a link argument of this one crate: only kuatia-ffi is relinked, the core's build is shared.
  cargo rustc -p kuatia-ffi --lib --release --locked -- -C "link-arg=-Wl,-soname,$SONAME" --print native-static-libs \
    2>&1 | tee "$TARGET_DIR/install-c.log" | grep -E '^(error|warning)' >&2 || true
  sed -n 's/^note: native-static-libs: //p' "$TARGET_DIR/install-c.log" | tail -n 1 >"$BUILD/native-static-libs.txt"
fi
for f in libkuatia.so libkuatia.a native-static-libs.txt; do
  [ -f "$BUILD/$f" ] || { echo "install-c: $BUILD/$f missing (build failed?)" >&2; exit 1; }
done
if ! readelf -d "$BUILD/libkuatia.so" | grep >/dev/null "Library soname: \[$SONAME\]"; then
  echo "install-c: $BUILD/libkuatia.so has no soname $SONAME (built without scripts/install-c.sh?)" >&2
  exit 1
fi
# Programs linked against target/release (the checkout's Go tests with KUATIA_PROFILE=release, say) now need the
# soname: a link beside the build, as ldconfig makes in the prefix.
ln -sfn libkuatia.so "$BUILD/$SONAME"
LIBS_PRIVATE="$(cat "$BUILD/native-static-libs.txt")"

LIBDIR="$PREFIX/$LIBDIR_NAME"
D="$DESTDIR"
install -d "$D$PREFIX/include" "$D$LIBDIR/pkgconfig"
install -m 0644 include/kuatia.h "$D$PREFIX/include/kuatia.h"
install -m 0755 "$BUILD/libkuatia.so" "$D$LIBDIR/libkuatia.so.$VERSION"
ln -sfn "libkuatia.so.$VERSION" "$D$LIBDIR/$SONAME"
ln -sfn "$SONAME" "$D$LIBDIR/libkuatia.so"
install -m 0644 "$BUILD/libkuatia.a" "$D$LIBDIR/libkuatia.a"
sed -e '/^#/d' -e "s|@PREFIX@|$PREFIX|" -e "s|@LIBDIR@|\${prefix}/$LIBDIR_NAME|" -e "s|@INCLUDEDIR@|\${prefix}/include|" \
  -e "s|@VERSION@|$VERSION|" -e "s|@LIBS_PRIVATE@|$LIBS_PRIVATE|" "$ROOT/ffi/kuatia.pc.in" >"$D$LIBDIR/pkgconfig/kuatia.pc"
echo "installed kuatia $VERSION (soname $SONAME) under $D$PREFIX"
