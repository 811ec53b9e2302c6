#!/usr/bin/env bash
# The golden outputs: every command of tools/golden/commands.txt run with the real binary, its
# stdout and the files it writes compared byte for byte with tools/golden/expected/. A refactoring
# must leave them identical; a change that alters results on purpose re-records them with
# --record and says so in its commit.
#
#   tools/golden/check.sh KNOBSIM            compare (exit 0 identical, 1 differences)
#   tools/golden/check.sh KNOBSIM --record   write tools/golden/expected/ anew
set -euo pipefail
knobsim="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
mode="${2:-compare}"
root="$(cd "$(dirname "$0")/../.." && pwd)"
expected="$root/tools/golden/expected"
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT
cd "$root"
# What knobsim keeps between commands (backtest headlines) starts empty: the user's own cache
# never changes a golden output.
export KNOBSIM_CACHE_DIR="$OUT/cache"

while read -r name args; do
  case "$name" in ''|'#'*) continue ;; esac
  args="${args//\$OUT/$OUT}"
  # shellcheck disable=SC2086  # the arguments are split as written in commands.txt
  set +e
  "$knobsim" $args >"$OUT/$name.out" 2>"$OUT/$name.err"
  rc=$?
  set -e
  echo "$rc" >"$OUT/$name.rc"
  # Paths of this run's temporary folder and wall-clock timings never belong in a golden file.
  sed -i -E -e "s#$OUT#\$OUT#g" -e 's/ in [0-9.]+ (s|ms|min)\b/ in (time)/g' "$OUT/$name.out" "$OUT/$name.err"
done <tools/golden/commands.txt

if [ "$mode" = "--record" ]; then
  rm -rf "$expected"
  mkdir -p "$expected"
  cp -r "$OUT"/. "$expected"/
  echo "golden: recorded $(find "$expected" -type f | wc -l) files in tools/golden/expected"
  exit 0
fi

if diff -r "$expected" "$OUT" >"$OUT.diff" 2>&1; then
  echo "golden: $(find "$expected" -type f | wc -l) files identical"
  rm -f "$OUT.diff"
  exit 0
fi
echo "golden: outputs differ from tools/golden/expected (first 200 lines):" >&2
head -200 "$OUT.diff" >&2
[ -n "${GOLDEN_DIFF:-}" ] && cp "$OUT.diff" "$GOLDEN_DIFF"
rm -f "$OUT.diff"
exit 1
