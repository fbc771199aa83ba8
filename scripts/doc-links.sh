#!/usr/bin/env bash
# Fails when a DocC symbol link in a doc comment (``Symbol``, ``Type/member(label:)``) names nothing:
# `make lint` runs it. Offline, with the toolchain only:
#   1. `swift build --build-tests` (the debug build `make test` uses, so it is incremental there);
#   2. `swift-symbolgraph-extract` per Swift module of the package — libraries, executables, test
#      support and test targets — at access level private, so internal declarations' comments count;
#   3. `docc convert` per module, its diagnostics as JSON;
#   4. scripts/doc-links.py keeps the diagnostics about links and drops those DocC cannot judge alone:
#      a link into another module of the package that names a symbol there (DocC converts one module
#      at a time), and links into the toolchain's modules (Swift, Foundation, …).
# About 2 minutes on 2 busy cores after the build. DOC_LINKS_JOBS: conversions at once (default 2);
# DOC_LINKS_MODULES: check only these modules (space-separated names), e.g. while fixing links.
set -euo pipefail
cd "$(dirname "$0")/.."

SWIFT="${SWIFT:-swift}"
JOBS="${DOC_LINKS_JOBS:-2}"
TOOLBIN="$(dirname "$(readlink -f "$(command -v "$SWIFT")")")"
EXTRACT="$TOOLBIN/swift-symbolgraph-extract"
DOCC="$TOOLBIN/docc"
[ -x "$DOCC" ] || DOCC="$(command -v docc)"

"$SWIFT" build --build-tests
BIN="$("$SWIFT" build --show-bin-path)"
TRIPLE="$(basename "$(dirname "$BIN")")"

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

# The C targets' module maps and their headers' include directories, as the build passes them.
CFLAGS=()
for map in Sources/C*/module.modulemap; do CFLAGS+=(-Xcc "-fmodule-map-file=$PWD/$map"); done
pkgs="$(sed -n 's/.*pkgConfig: "\([^"]*\)".*/\1/p' Package.swift | sort -u | tr '\n' ' ')"
# shellcheck disable=SC2086
for flag in $(pkg-config --cflags-only-I $pkgs); do CFLAGS+=(-Xcc "$flag"); done

# Every Swift module of the package (executables' names with `-` become `_`).
"$SWIFT" package describe --type json >"$WORK/package.json"
MODULES="$(python3 -c '
import json, sys
for t in json.load(open(sys.argv[1]))["targets"]:
    if t.get("module_type") == "SwiftTarget":
        print(t.get("c99name") or t["name"].replace("-", "_"))
' "$WORK/package.json")"

for m in $MODULES; do
    mkdir -p "$WORK/graphs/$m"
    "$EXTRACT" -module-name "$m" -target "$TRIPLE" -I "$BIN/Modules" "${CFLAGS[@]}" \
        -module-cache-path "$BIN/ModuleCache" -minimum-access-level private -skip-inherited-docs \
        -output-dir "$WORK/graphs/$m"
done

convert() {
    local m="$1"
    "$DOCC" convert --additional-symbol-graph-dir "$WORK/graphs/$m" --fallback-display-name "$m" \
        --fallback-bundle-identifier "nowetl.$m" --output-dir "$WORK/archives/$m.doccarchive" \
        --diagnostics-file "$WORK/diagnostics/$m.json" >"$WORK/diagnostics/$m.log" 2>&1 \
        || { echo "docc convert failed for $m:" >&2; cat "$WORK/diagnostics/$m.log" >&2; return 1; }
}
export -f convert
export DOCC WORK
mkdir -p "$WORK/archives" "$WORK/diagnostics"
# shellcheck disable=SC2086
printf '%s\n' ${DOC_LINKS_MODULES:-$MODULES} | xargs -P "$JOBS" -I{} bash -c 'convert "$1"' _ {}

python3 scripts/doc-links.py "$WORK/graphs" "$WORK/diagnostics"
