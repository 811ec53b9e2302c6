#!/usr/bin/env bash
# Runs the fuzz harnesses one after another (README.md).
#
#   tools/fuzz/run.sh [SECONDS] [HARNESS...]    # default 300 s each, every harness
#
# Expects tools/fuzz/build.sh and tools/fuzz/make_seeds.py to have run (same OUT_DIR, default
# /tmp/knobsim-fuzz, or $KNOBSIM_FUZZ_DIR). Corpora grow in OUT_DIR/corpus/<name>, findings land
# in OUT_DIR/crashes/<name>/ (crash-*, timeout-*, oom-*), logs in OUT_DIR/logs/<name>.log.
# One worker at a time (-fork=1) that carries on past findings, so one run collects them all.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="${KNOBSIM_FUZZ_DIR:-/tmp/knobsim-fuzz}"
SECONDS_EACH="${1:-300}"
shift || true
declare -A CORPUS=([kube_reader]=kube [prom_reader]=prom [scenario_reader]=scenario [knobs]=knobs
                   [trace_reader]=trace)
HARNESSES=("$@")
[[ ${#HARNESSES[@]} -gt 0 ]] || HARNESSES=(kube_reader prom_reader scenario_reader knobs trace_reader)

cd "$OUT"
mkdir -p logs
for h in "${HARNESSES[@]}"; do
  c="${CORPUS[$h]}"
  mkdir -p "corpus/$c" "crashes/$c" "seeds/$c"
  echo "$h: ${SECONDS_EACH}s, log in $OUT/logs/$c.log"
  "bin/${h}_fuzz" -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
    -max_total_time="$SECONDS_EACH" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="crashes/$c/" -dict="$HERE/$c.dict" "corpus/$c" "seeds/$c" \
    > "logs/$c.log" 2>&1 || true
  grep -E '^#[0-9]+:' "logs/$c.log" | tail -1
done
