#!/usr/bin/env bash
# Builds the libFuzzer harnesses of tools/fuzz with clang++ (README.md says how to run them).
#
#   tools/fuzz/build.sh [OUT_DIR]        # default /tmp/knobsim-fuzz; binaries in OUT_DIR/bin
#
# The reader sources are compiled with -fsanitize=fuzzer-no-link,address,undefined into
# OUT_DIR/obj (recompiled only when the .cpp is newer than its object; headers are not tracked,
# so delete OUT_DIR/obj after changing one) and each harness is linked with -fsanitize=fuzzer.
# Not part of the CMake build on purpose: it needs clang and its libFuzzer runtime.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OUT="${1:-/tmp/knobsim-fuzz}"
CXX="${CXX:-clang++-14}"
FLAGS=(-std=c++20 -O1 -g -fno-omit-frame-pointer -I"$ROOT" -I/usr/include/eigen3
       -Wall -Wextra -Wpedantic)
# UBSan findings abort, so the fuzzer stops on them instead of printing and going on.
SAN=(-fsanitize=address,undefined -fno-sanitize-recover=undefined)
LIBS=(-lyaml-cpp -lfmt)

# What the readers link against: the readers themselves and the few sim/ and models/ files they
# call (cluster snapshot, scenario objects, GPU catalog, memory isolation, quantities).
SOURCES=(
  sim/input_error.cpp
  sim/io/quantity.cpp
  sim/io/spelling.cpp
  sim/io/kube_reader.cpp
  sim/io/prom_reader.cpp
  sim/io/scenario_reader.cpp
  sim/whatif/knobs.cpp
  sim/replay/trace_reader.cpp
  sim/scenario_objects.cpp
  sim/scheduler/cluster_state.cpp
  models/gpu_catalog.cpp
  models/memory_isolation.cpp
)
HARNESSES=(kube_reader prom_reader scenario_reader knobs trace_reader)

mkdir -p "$OUT/obj" "$OUT/bin"
objects=()
for src in "${SOURCES[@]}"; do
  obj="$OUT/obj/${src//\//_}.o"
  if [[ ! -f "$obj" || "$ROOT/$src" -nt "$obj" ]]; then
    echo "compile $src"
    "$CXX" "${FLAGS[@]}" "${SAN[@]}" -fsanitize=fuzzer-no-link -c "$ROOT/$src" -o "$obj"
  fi
  objects+=("$obj")
done
for h in "${HARNESSES[@]}"; do
  echo "link ${h}_fuzz"
  "$CXX" "${FLAGS[@]}" "${SAN[@]}" -fsanitize=fuzzer "$ROOT/tools/fuzz/${h}_fuzz.cpp" \
    "${objects[@]}" "${LIBS[@]}" -o "$OUT/bin/${h}_fuzz"
done
