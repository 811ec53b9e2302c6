#!/usr/bin/env bash
# The CTest test `fuzz` of every build tree but the fuzz one (CMakeLists.txt): configures and
# builds the fuzz preset (build/fuzz: clang++, libFuzzer, ASan + UBSan, the project's own
# libraries) and runs its tests fuzz-NAME, a short fixed run of each harness from its checked-in
# corpus (tools/fuzz/README.md).
#
# Skipped (exit 77) when clang++ or its libFuzzer runtime is missing, saying which; with
# KNOBSIM_FUZZ_REQUIRED=1 (.ci/run sets it, since tools/setup.sh installs both) that is a failure.
set -euo pipefail
cd "$(dirname "$0")/../.."
cxx="${KNOBSIM_FUZZ_CXX:-clang++}"  # KNOBSIM_FUZZ_CXX=clang++-16: another clang

skip() {
  echo "fuzz: skipped: $1 (tools/setup.sh installs clang and libclang-rt-dev)"
  [[ "${KNOBSIM_FUZZ_REQUIRED:-0}" == 1 ]] && { echo "fuzz: KNOBSIM_FUZZ_REQUIRED=1: failing"; exit 1; }
  exit 77
}

command -v "$cxx" >/dev/null || skip "no $cxx"
probe="$(mktemp -d)"
trap 'rm -rf "$probe"' EXIT
echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' \
  > "$probe/probe.cpp"
"$cxx" -fsanitize=fuzzer,address,undefined "$probe/probe.cpp" -o "$probe/probe" 2> "$probe/err" ||
  { sed 's/^/  /' "$probe/err"; skip "$cxx cannot link -fsanitize=fuzzer"; }

options=()
command -v ccache >/dev/null && options=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
# The preset names clang++; another compiler only when asked (changing it rebuilds the tree).
[[ -n "${KNOBSIM_FUZZ_CXX:-}" ]] && options+=(-DCMAKE_CXX_COMPILER="$(command -v "$cxx")")
cmake --preset fuzz "${options[@]}" > /dev/null
cmake --build --preset fuzz -j "$(nproc)"
ctest --preset fuzz -j "$(nproc)"
