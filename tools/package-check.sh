#!/usr/bin/env bash
# Makes the Debian package of an already built tree with CPack (no rebuild), checks its control
# fields (name, version, maintainer, Depends computed by dpkg-shlibdeps and present on this
# machine), unpacks it into a scratch root with dpkg-deb -x and runs tools/install-check.sh there.
# .ci/run calls it after the tests; the .deb stays in BUILD_DIR/package/ (docs/install.md).
#
#   tools/package-check.sh [BUILD_DIR]        # default build/release
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build/release}"
fail() { echo "package-check: $*" >&2; exit 1; }
[ -f "$build/CPackConfig.cmake" ] || fail "no $build/CPackConfig.cmake: configure and build $build first"

start=$SECONDS
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
rm -rf "$build/package"
if ! cpack --config "$build/CPackConfig.cmake" -G DEB -B "$build/package" >"$tmp/cpack.log" 2>&1; then
  cat "$tmp/cpack.log" >&2
  fail "cpack failed"
fi
shopt -s nullglob
debs=("$build"/package/knobsim_*.deb)
[ ${#debs[@]} -eq 1 ] || fail "expected one knobsim_*.deb in $build/package, found ${#debs[@]}"
deb="${debs[0]}"

field() { dpkg-deb -f "$deb" "$1"; }
version="$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build/CMakeCache.txt")"
[ "$(field Package)" = knobsim ] || fail "Package is '$(field Package)'"
[ "$(field Version)" = "$version" ] || fail "Version is '$(field Version)', the project's is $version"
[ -n "$(field Maintainer)" ] || fail "no Maintainer"
[ -n "$(field Description)" ] || fail "no Description"
depends="$(field Depends)"
for lib in libyaml-cpp libfmt libgomp1 libstdc++6; do
  [[ "$depends" == *"$lib"* ]] || fail "Depends lacks $lib: '$depends'"
done
# Every package Depends names (first of each alternative) is one this machine has: the names
# dpkg-shlibdeps computed are real Debian packages.
for dep in $(echo "$depends" | tr ',' '\n' | sed 's/|.*//; s/(.*)//; s/ //g'); do
  dpkg-query -W -f='${Status}' "$dep" 2>/dev/null | grep -q "install ok installed" ||
    fail "Depends names $dep, which is not installed here"
done

root="$tmp/root"
dpkg-deb -x "$deb" "$root"
bash tools/install-check.sh "$root/usr"
echo "package-check: $deb ($(du -k "$deb" | cut -f1) KiB; Depends: $depends) in $((SECONDS - start)) s"
