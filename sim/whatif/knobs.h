// Knobs: the what-if vocabulary of `knobsim whatif` (docs/whatif.md) — short `KEY[:TARGET]=VALUE`
// strings such as `policy=3`, `isolation:gpu-a10=hard` or `quota:prod/asr=peak+10%` — turned
// into the Variant that sim/variant.cpp applies, checked against the scenario they change.
//
// A what-if is only as good as its knobs, so they are read as strictly as the scenario: an
// unknown knob, pool or workload, or a value out of range is an InputError naming where the
// knob came from (`--knob` or FILE:LINE), the knob itself and a "did you mean" hint.
//
// TARGET is a node pool (`placement`, `isolation`, `nodes`) or a workload (`quota`, `spread`,
// `replicas`, `traffic`, `gpu_core`); a workload is `namespace/name`, a bare name when only one
// workload has it, or `*` for every workload; a pool is its name or `*`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/input_error.h"
#include "sim/scenario.h"

namespace knobsim {

// One knob as the user wrote it, and where: `file` is "--knob" for the command line or the
// knobs file, `line` its 1-based line there (0 on the command line), `path` the field path
// (`variants[1].knobs[0]`; empty on the command line).
struct KnobText {
  std::string text;
  std::string file = "--knob";
  int line = 0;
  std::string path;
};

// The GPU memory one pod of `w` holds on one of its cards at its peak, in MiB, on a card of
// type `gpu`: the CUDA context (the workload's, else the catalog's) + its share of the weights
// + its share of one request's activation × the most requests it can have in flight
// (concurrency × max_batch). A pod on M cards (gpu_count) holds ceil(1/M) of weights and
// activations on each card, and a context on each — the rule BindPod applies
// (sim/controllers/placement.cpp).
// Fails for a workload with unlimited concurrency (0): its peak has no bound.
Expected<int64_t> PeakPodMemoryPerCardMib(const Workload& w, const GpuType& gpu);

// The fewest gpu-mem units whose visible quota on a card of `physical_mib`
// (VisibleQuotaMib, models/memory_isolation.h) holds `mib`, never more than the card's units
// (CardMemoryUnits). 46068 MiB (L20, 44 units, 1047 MiB per unit): 23490 MiB -> 23.
int UnitsToHoldMib(int64_t mib, int64_t physical_mib);

// The gpu-mem request (units for the whole pod, every card of it) that a `quota:W=peak...`
// knob gives `w`. `extra_percent` scales the peak MiB before rounding (peak+10% -> 10);
// `extra_units` is added to the rounded units per card (peak+2 -> 2). The card is the GPU type
// of the sharing pools `w` can land on (pools with cards, not ack.node.gpu.schedule default,
// whose labels match its node_selector); with several types, the largest answer. Per card the
// result never exceeds the card; the pod total is that × gpu_count.
Expected<int> PeakQuotaUnits(const Scenario& s, const Workload& w, double extra_percent,
                             int extra_units);

// The variant named `name` that the knobs make together. Knobs are independent of their order,
// except that several `spread:` knobs for one workload add up; the same knob twice for the same
// target is an error. An entry for one pool or workload wins over a `*` entry.
Expected<Variant> VariantFromKnobs(const Scenario& s, const std::vector<KnobText>& knobs,
                                   std::string name);

// The name of the variant made by `--knob` flags: the knob texts joined with commas
// (`policy=3,isolation=hard`).
std::string KnobVariantName(const std::vector<std::string>& knobs);

// A `--knobs FILE`: several named variants, each a set of knobs (docs/whatif.md, "Knobs file").
// Unknown keys, duplicate names and bad knobs fail with the file's line.
Expected<std::vector<Variant>> ReadKnobsFile(const std::string& path, const Scenario& s);
Expected<std::vector<Variant>> ReadKnobsString(const std::string& yaml, const std::string& file,
                                               const Scenario& s);

}  // namespace knobsim
