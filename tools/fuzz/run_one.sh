#!/usr/bin/env bash
# One short, deterministic fuzz run of one harness from its checked-in corpus: the CTest test
# fuzz-NAME (CMakeLists.txt here). Fails when the harness finds a crash, a sanitizer report, an
# escaping exception, a timeout or an out-of-memory; the input is kept in FINDINGS.
#
#   run_one.sh HARNESS CORPUS DICT FINDINGS RUNS
#
# New inputs go to a scratch folder that is removed afterwards, so the checked-in corpus is
# never written and every run starts from the same seeds (-seed=1): the same inputs each time.
set -euo pipefail
harness="$1" corpus="$2" dict="$3" findings="$4" runs="$5"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$findings"
"$harness" -runs="$runs" -seed=1 -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
  -dict="$dict" -artifact_prefix="$findings/" -print_final_stats=1 "$scratch" "$corpus"
