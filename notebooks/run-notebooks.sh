#!/usr/bin/env bash
# Executes notebooks headless with Debian's Jupyter (python3-nbconvert and the `python3` kernel of
# python3-ipykernel; tools/setup.sh installs them) and fails on the first cell that raises.
# The executed copies go to a temporary folder, or to $NOTEBOOK_OUT when set.
#
#   KNOBSIM=build/release/knobsim notebooks/run-notebooks.sh [NOTEBOOK.ipynb...]
#
# KNOBSIM: the knobsim binary (default build/release/knobsim). KNOBSIM_TRACE_DIR: the Alibaba
# trace (default ../shared/data/alibaba-gpu-v2023 beside the checkout); without it the notebooks
# that replay it (fgd-replay.ipynb) are skipped, and when nothing is left to run the status is
# 77 (CTest's SKIP_RETURN_CODE), unless FGD_REPLAY_DIR names a `knobsim replay --out` folder for it
# to read. capacity.ipynb and timeline.ipynb need no trace (PLAN_JSON and PLAN_ARGS, VARIANT and
# TIMELINE_STEP pass through to them). No arguments: every notebooks/*.ipynb.
# NOTEBOOK_OUT=notebooks refreshes the committed outputs.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

# Debian's interpreter explicitly: a `python3` on PATH (pyenv, a venv) may lack these modules.
python=/usr/bin/python3
if ! "$python" -c 'import nbconvert, nbclient, ipykernel, matplotlib, pandas' 2>/dev/null; then
  echo "run-notebooks: $python lacks Jupyter, matplotlib or pandas; run tools/setup.sh" >&2
  exit 1
fi

knobsim="${KNOBSIM:-$root/build/release/knobsim}"
if [ ! -x "$knobsim" ]; then
  echo "run-notebooks: no knobsim binary at $knobsim (build it, or set KNOBSIM)" >&2
  exit 1
fi
# The kernel runs in the notebook's folder: hand it absolute paths.
export KNOBSIM="$(cd "$(dirname "$knobsim")" && pwd)/$(basename "$knobsim")"
trace_dir="${KNOBSIM_TRACE_DIR:-$root/../shared/data/alibaba-gpu-v2023}"
have_trace=0
if [ -f "$trace_dir/openb_node_list_gpu_node.csv" ]; then
  have_trace=1
  export KNOBSIM_TRACE_DIR="$(cd "$trace_dir" && pwd)"
fi
# The notebooks that read the Alibaba trace; the others run without it. fgd-replay.ipynb reads an
# earlier replay's output instead when FGD_REPLAY_DIR names one.
needs_trace() { [ "$(basename "$1")" = fgd-replay.ipynb ] && [ -z "${FGD_REPLAY_DIR:-}" ]; }
if [ -n "${FGD_REPLAY_DIR:-}" ]; then
  FGD_REPLAY_DIR="$(cd "$FGD_REPLAY_DIR" && pwd)" || { echo "run-notebooks: no folder $FGD_REPLAY_DIR" >&2; exit 1; }
  export FGD_REPLAY_DIR
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
out="${NOTEBOOK_OUT:-$tmp/executed}"
mkdir -p "$out"
# Caches and kernel files in the temporary folder, not in a home that CI may not let us write;
# JUPYTER_PATH first so that the `python3` kernel is Debian's, not one a user registered. (The
# last variable quiets the kernel debugger's warning about frozen modules at every start.)
export MPLCONFIGDIR="$tmp/matplotlib" IPYTHONDIR="$tmp/ipython" PYDEVD_DISABLE_FILE_VALIDATION=1
export JUPYTER_PATH=/usr/share/jupyter JUPYTER_DATA_DIR="$tmp/jupyter-data"
export JUPYTER_RUNTIME_DIR="$tmp/jupyter-runtime" JUPYTER_CONFIG_DIR="$tmp/jupyter-config"

notebooks=("$@")
if [ ${#notebooks[@]} -eq 0 ]; then
  notebooks=("$root"/notebooks/*.ipynb)
fi
ran=0
for nb in "${notebooks[@]}"; do
  if needs_trace "$nb" && [ "$have_trace" -eq 0 ]; then
    echo "run-notebooks: no trace in $trace_dir; $(basename "$nb") skipped" >&2
    continue
  fi
  ran=$((ran + 1))
  start=$SECONDS
  echo "run-notebooks: $nb" >&2
  # No cell timeout of nbclient's default 30 s: the replay sweep takes about a minute.
  "$python" -m nbconvert --to notebook --execute \
    --ExecutePreprocessor.kernel_name=python3 --ExecutePreprocessor.timeout=1200 \
    --output-dir "$out" "$nb"
  echo "run-notebooks: $(basename "$nb") passed in $((SECONDS - start)) s" >&2
done
if [ "$ran" -eq 0 ]; then
  echo "run-notebooks: nothing ran; skipped" >&2
  exit 77
fi
