#!/usr/bin/env bash
# CTest `notebooks-replay-dir`: fgd-replay.ipynb on the folder an earlier `knobsim replay --out`
# wrote (FGD_REPLAY_DIR) instead of its own sweep. A small replay (two traces, seeds 42-43) is
# read back, drawn, and set beside the paper's files, whose deterministic medians it must equal.
# Skipped (77) without the trace, like the notebook itself.
#
#   KNOBSIM=build/release/knobsim notebooks/check-replay-dir.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
knobsim="${KNOBSIM:-$root/build/release/knobsim}"
trace_dir="${KNOBSIM_TRACE_DIR:-$root/../shared/data/alibaba-gpu-v2023}"
if [ ! -f "$trace_dir/openb_node_list_gpu_node.csv" ]; then
  echo "check-replay-dir: no trace in $trace_dir; skipped" >&2
  exit 77
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
"$knobsim" replay --nodes "$trace_dir/openb_node_list_gpu_node.csv" \
  --pods "$trace_dir/openb_pod_list_default.csv" "$trace_dir/openb_pod_list_gpushare40.csv" \
  --policy all --seeds 42-43 --out "$tmp/replay" >/dev/null
FGD_REPLAY_DIR="$tmp/replay" NOTEBOOK_OUT="$tmp/executed" KNOBSIM="$knobsim" \
  bash "$root/notebooks/run-notebooks.sh" "$root/notebooks/fgd-replay.ipynb"
# What the executed notebook printed: it read that folder, ran no sweep, and compared with the paper.
/usr/bin/python3 - "$tmp/executed/fgd-replay.ipynb" "$tmp/replay" <<'PY'
import json, sys
nb = json.load(open(sys.argv[1]))
text = "".join("".join(o.get("text", "")) for c in nb["cells"] for o in c.get("outputs", []))
for expected in (f"reading: {sys.argv[2]}", "traces: default, gpushare40 | seeds: 42,43",
                 "no sweep run", "32 runs of ours, 24 of the paper's", "largest |ours - paper|"):
    assert expected in text, f"the executed notebook does not say {expected!r}:\n{text}"
print("check-replay-dir: fgd-replay.ipynb read the replay folder and matched the paper")
PY
