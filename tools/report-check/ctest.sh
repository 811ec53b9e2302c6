#!/usr/bin/env bash
# The CTest test `report-browser`: renders one plan document (the fixture
# tools/knobsim/testdata/plan-sample.json), one run document (made here, by `knobsim run
# scenarios/quickstart.yaml --all`) and one upgrade rehearsal (`knobsim upgrade
# scenarios/cgpu-upgrade.yaml --compare`) and a backtest of tools/gen-export's backtest profile
# with the real binaries, and checks the pages in headless Chromium (check.sh). The pages and
# their screenshots are kept in ARTEFACT_DIR for CI.
#
#   tools/report-check/ctest.sh KNOBSIM ARTEFACT_DIR
#
# Exit 0 passed, 1 failed, 77 no chromium (skipped).
set -euo pipefail
knobsim="$1"
artefacts="$2"
root="$(cd "$(dirname "$0")/../.." && pwd)"
check="$root/tools/report-check/check.sh"

if ! command -v chromium >/dev/null && ! command -v chromium-browser >/dev/null && [ -z "${CHROMIUM:-}" ]; then
  echo "report-browser: no chromium (tools/setup.sh installs it); skipped" >&2
  exit 77
fi
mkdir -p "$artefacts"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# The plan: a frontier per traffic level, p99 against traffic, a heat map per recommendation.
plan="$root/tools/knobsim/testdata/plan-sample.json"
levels="$(/usr/bin/python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["traffic_levels"]))' "$plan")"
"$knobsim" report "$plan" -o "$artefacts/report-plan.html"
bash "$check" "$artefacts/report-plan.html" --charts $((2 * levels + 1)) \
  --screenshot "$artefacts/report-plan.png"

# A run of every quickstart variant (10 simulated minutes, 5 variants) with --timeline: p99 per
# variant and a heat map, then each variant over time (availability, errors, p99).
status=0
"$knobsim" run "$root/scenarios/quickstart.yaml" --all --duration 10m --timeline 1m --quiet \
  --json "$tmp/run.json" || status=$?
if [ "$status" -gt 1 ]; then
  echo "report-browser: knobsim run failed with status $status" >&2
  exit 1
fi
"$knobsim" report "$tmp/run.json" -o "$artefacts/report-run.html"
# What the page must show, from the document: the p99 bars and a utilization map per variant with
# cards, two small charts per workload over time and an errors chart per variant; a failed bar
# for each workload of a variant whose requests all failed (the upgrade-first incident); the
# variants' names.
read -r run_charts run_failed run_variants < <(/usr/bin/python3 - "$tmp/run.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
variants = [v for v in d["variants"] if v.get("timeline")]
workloads = {w["id"] for v in variants for w in v["timeline"]["workloads"]}
failed = sum(1 for v in d["variants"] for w in v["workloads"]
             if w["requests"] > 0 and w["completed"] == 0)
maps = sum(1 for v in d["variants"] if v.get("cards"))
print(1 + maps + 2 * len(workloads) + len(variants), failed,
      ",".join(v["name"] for v in d["variants"]))
PY
)
if [ "$run_failed" -lt 1 ]; then
  echo "report-browser: the quickstart's upgrade-first variant no longer fails: no failed bar to check" >&2
  exit 1
fi
bash "$check" "$artefacts/report-run.html" --charts "$run_charts" --failed-bars "$run_failed" \
  --slo-lines --variants "$run_variants" --screenshot "$artefacts/report-run.png"
# An upgrade rehearsal (knobsim upgrade --compare): the run page's two charts, then per
# rehearsal the node Gantt chart, availability, errors by cause and p99 over time, and the same
# three over time for base (no upgrade): 2 + 2 × 4 + 3. Status 1 is the
# rehearsal finding breakage, which this story has on purpose.
status=0
"$knobsim" upgrade "$root/scenarios/cgpu-upgrade.yaml" --compare -q \
  --registry-tags "$root/scenarios/cgpu-upgrade.registry-tags" --json "$tmp/upgrade.json" || status=$?
if [ "$status" -gt 1 ]; then
  echo "report-browser: knobsim upgrade failed with status $status" >&2
  exit 1
fi
"$knobsim" report "$tmp/upgrade.json" -o "$artefacts/report-upgrade.html"
# The results page's charts (the p99 bars, a utilization map per variant with cards) and the
# rehearsal's eight, then over time for the base (the one variant with a timeline and no
# rehearsal): two small charts per workload and its errors.
upgrade_charts="$(/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); v=d["variants"]; print(1 + sum(1 for x in v if x.get("cards")) + 8 + sum(2 * len(x["timeline"]["workloads"]) + 1 for x in v if x.get("timeline") and "upgrade" not in x))' "$tmp/upgrade.json")"
# (no --slo-lines: the rehearsal's workloads have errors-only objectives)
bash "$check" "$artefacts/report-upgrade.html" --charts "$upgrade_charts" \
  --screenshot "$artefacts/report-upgrade.png"
# A backtest of tools/gen-export's backtest profile (docs/backtest.md): one chart per card with
# measured utilization and two per workload with measured latency (mean and p99).
# The pre-upgrade check and a comparison, the pages of a change review.
status=0
"$knobsim" check "$root/scenarios/cgpu-upgrade.yaml" --registry-tags \
  "$root/scenarios/cgpu-upgrade.registry-tags" -q --report "$artefacts/report-check.html" || status=$?
if [ "$status" -gt 1 ]; then
  echo "report-browser: knobsim check failed with status $status" >&2
  exit 1
fi
bash "$check" "$artefacts/report-check.html" --charts 1 --screenshot "$artefacts/report-check.png"
"$knobsim" run "$root/scenarios/quickstart.yaml" --duration 10m --quiet --json "$tmp/before.json"
"$knobsim" run "$root/scenarios/quickstart.yaml" --duration 10m --seed 2 --quiet --json "$tmp/after.json"
status=0
"$knobsim" diff "$tmp/before.json" "$tmp/after.json" -o /dev/null --report "$artefacts/report-diff.html" ||
  status=$?
if [ "$status" -gt 1 ]; then
  echo "report-browser: knobsim diff failed with status $status" >&2
  exit 1
fi
bash "$check" "$artefacts/report-diff.html" --charts 1 --screenshot "$artefacts/report-diff.png"
"$(dirname "$knobsim")/knobsim-gen-export" --profile backtest --nodes 8 --pods 24 --days 1 \
  -o "$tmp/backtest" >/dev/null
"$knobsim" backtest --no-store --kube "$tmp/backtest/export.json" --prom "$tmp"/backtest/prom/*.json \
  --rate-metric http_requests_per_second --latency-metric knobsim_request_duration_seconds \
  --replications 2 --quiet --json "$tmp/backtest.json" --html "$artefacts/report-backtest.html" \
  >/dev/null
charts="$(/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len(d["cards"]) + 2 * len(d["workloads"]))' "$tmp/backtest.json")"
bash "$check" "$artefacts/report-backtest.html" --charts "$charts" \
  --screenshot "$artefacts/report-backtest.png"
echo "report-browser: pages and screenshots in $artefacts" >&2
