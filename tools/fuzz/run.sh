#!/usr/bin/env bash
# Long fuzz runs, one harness after another (README.md); CTest's fuzz-NAME tests are the short ones.
#
#   tools/fuzz/run.sh [SECONDS] [HARNESS...]    # default 300 s each, every harness
#
# Expects the fuzz preset built (cmake --preset fuzz && cmake --build --preset fuzz); binaries
# from build/fuzz/tools/fuzz, or $KNOBSIM_FUZZ_BIN. The harnesses and their dictionaries are
# read from CMakeLists.txt here (the knobsim_fuzzer lines). Each corpus grows in
# OUT/corpus/NAME (OUT: $KNOBSIM_FUZZ_DIR, default /tmp/knobsim-fuzz), seeded from the
# checked-in corpus/NAME and, when make_seeds.py has written them, OUT/seeds/DICT. Findings land
# in OUT/crashes/NAME/ (crash-*, timeout-*, oom-*), logs in OUT/logs/NAME.log. One worker at a
# time (-fork=1) that carries on past findings, so one run collects them all.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BIN="${KNOBSIM_FUZZ_BIN:-$HERE/../../build/fuzz/tools/fuzz}"
OUT="${KNOBSIM_FUZZ_DIR:-/tmp/knobsim-fuzz}"
SECONDS_EACH="${1:-300}"
shift || true
declare -A DICT
while read -r name dict; do DICT[$name]=$dict; done < <(
  sed -n 's/^knobsim_fuzzer(\([a-z_]*\) \([a-z_]*\) .*/\1 \2/p' "$HERE/CMakeLists.txt")
HARNESSES=("$@")
[[ ${#HARNESSES[@]} -gt 0 ]] || mapfile -t HARNESSES < <(printf '%s\n' "${!DICT[@]}" | sort)

mkdir -p "$OUT/logs"
for h in "${HARNESSES[@]}"; do
  d="${DICT[$h]:?unknown harness $h (see CMakeLists.txt)}"
  mkdir -p "$OUT/corpus/$h" "$OUT/crashes/$h"
  seeds=("$HERE/corpus/$h")
  [[ -d "$OUT/seeds/$d" ]] && seeds+=("$OUT/seeds/$d")
  echo "$h: ${SECONDS_EACH}s, log in $OUT/logs/$h.log"
  "$BIN/${h}_fuzz" -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
    -max_total_time="$SECONDS_EACH" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$OUT/crashes/$h/" -dict="$HERE/$d.dict" "$OUT/corpus/$h" "${seeds[@]}" \
    > "$OUT/logs/$h.log" 2>&1 || true
  grep -E '^#[0-9]+:' "$OUT/logs/$h.log" | tail -1
  ls "$OUT/crashes/$h" | sed 's/^/  finding: /'
done
