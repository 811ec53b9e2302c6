#!/usr/bin/env bash
# Installs the Debian 12 packages knobsim needs (only those missing), then configures and builds
# the given CMake preset (default: release). Usage: tools/setup.sh [release|debug]
set -euo pipefail
preset="${1:-release}"
cd "$(dirname "$0")/.."

packages=(
  build-essential cmake ninja-build pkg-config
  # tools/package-check.sh: dpkg-shlibdeps computes the Debian package's Depends
  dpkg-dev
  libyaml-cpp-dev doctest-dev libeigen3-dev libboost-graph-dev
  nlohmann-json3-dev libcli11-dev libfmt-dev libomp-dev libbenchmark-dev
  # notebooks/run-notebooks.sh: Debian's Jupyter (nbconvert, the python3 kernel), matplotlib, pandas
  python3-nbconvert python3-nbclient python3-ipykernel python3-matplotlib python3-pandas
  # tools/report-check: the HTML report opened in headless Chromium
  chromium
  # tools/bench-gate: Google Benchmark's compare.py modules (gbench) and their U test (scipy)
  libbenchmark-tools python3-scipy
  # tools/fuzz (CTest `fuzz`): clang++ and its libFuzzer/ASan/UBSan runtimes
  clang libclang-rt-dev
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j "$(nproc)"
