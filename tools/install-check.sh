#!/usr/bin/env bash
# Checks an installed knobsim as a user without the checkout meets it: the binary runs from
# anywhere, finds every shared library, says its version and its commands (each one in the man
# page), and runs the installed scenarios (recorded-traffic/ reads files beside its scenario).
#
#   tools/install-check.sh PREFIX              # a tree laid out by `cmake --install` (or a .deb)
#   tools/install-check.sh --install BUILD_DIR # `cmake --install BUILD_DIR` into a temporary prefix first
#
# CTest `install` runs the second form; tools/package-check.sh runs the first on the unpacked .deb.
set -euo pipefail

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
if [ "${1:-}" = --install ]; then
  [ -n "${2:-}" ] || { echo "usage: $0 --install BUILD_DIR" >&2; exit 2; }
  prefix="$tmp/prefix"
  cmake --install "$2" --prefix "$prefix" >/dev/null
else
  [ -n "${1:-}" ] || { echo "usage: $0 PREFIX | --install BUILD_DIR" >&2; exit 2; }
  prefix="$(cd "$1" && pwd)"
fi

fail() { echo "install-check: $*" >&2; exit 1; }
bin="$prefix/bin/knobsim"
data="$prefix/share/knobsim"
doc="$prefix/share/doc/knobsim"
man="$prefix/share/man/man1/knobsim.1"
[ -x "$bin" ] || fail "no executable $bin"
for f in "$data/scenarios/quickstart.yaml" "$data/scenarios/recorded-traffic/arrivals.csv" \
         "$doc/README.md" "$doc/docs/install.md" "$doc/docs/scenario.md" "$doc/models/README.md" "$man"; do
  [ -f "$f" ] || fail "missing $f"
done
if missing="$(ldd "$bin" | grep 'not found')"; then fail "unresolved libraries: $missing"; fi

# Nowhere near the checkout, with a home of its own: what the binary needs, it must bring.
mkdir -p "$tmp/work" "$tmp/home"
cd "$tmp/work"
export HOME="$tmp/home" XDG_CACHE_HOME="$tmp/home/.cache"

version="$("$bin" --version)"
[[ "$version" =~ ^knobsim\ [0-9]+\.[0-9]+\.[0-9]+$ ]] || fail "--version printed '$version'"

# The commands of `knobsim --help` (CLI11 lists them under "Subcommands:") against the man page's.
commands="$("$bin" --help | awk 'tolower($0) ~ /^subcommands:/ {on = 1; next} on && /^  [a-z]/ {print $1}' | sort)"
[ -n "$commands" ] || fail "knobsim --help lists no subcommand"
documented="$(awk '/^\.SH COMMANDS/ {on = 1; next} /^\.SH/ {on = 0} on && /^\.B / {print $2}' "$man" | sort)"
[ "$commands" = "$documented" ] ||
  fail "knobsim --help and the man page list different commands:$(diff <(echo "$commands") <(echo "$documented") | grep '^[<>]' | tr '\n' ' ')"
for c in $commands; do
  "$bin" "$c" --help >/dev/null || fail "knobsim $c --help failed"
done

"$bin" run "$data/scenarios/quickstart.yaml" --duration 1m --warmup 10s --quiet --json "$tmp/quickstart.json" ||
  fail "knobsim run quickstart.yaml exited $?"
grep -q '"schema": *"knobsim.results/v1"' "$tmp/quickstart.json" || fail "no results document"
"$bin" run "$data/scenarios/recorded-traffic/scenario.yaml" --duration 1m --quiet >/dev/null ||
  fail "knobsim run recorded-traffic/scenario.yaml exited $?"
echo "install-check: $version in $prefix: $(echo $commands | wc -w) commands, scenarios run"
