#include "models/mig_profiles.h"

#include <algorithm>
#include <array>

namespace knobsim {
namespace {

// The six profile kinds of a 7-slice card, in the order of the header's table, named by the
// card's memory class: `small`, `half` and `full` are the nominal GB of 1, 4 and 8 memory slices
// and `two` that of 2 (the guide's names round them).
std::vector<MigProfile> SevenSliceProfiles(int small, int two, int half, int full) {
  auto name = [](int g, int gb) { return std::to_string(g) + "g." + std::to_string(gb) + "gb"; };
  return {
      {name(1, small), 1, 1, {0, 1, 2, 3, 4, 5, 6}, 19},
      {name(1, two), 1, 2, {0, 2, 4, 6}, 15},
      {name(2, two), 2, 2, {0, 2, 4}, 14},
      {name(3, half), 3, 4, {0, 4}, 9},
      {name(4, half), 4, 4, {0}, 5},
      {name(7, full), 7, 8, {0}, 0},
  };
}

struct CardProfiles {
  std::string_view gpu_type;
  std::vector<MigProfile> profiles;
};

const std::array<CardProfiles, 4>& Table() {
  static const std::array<CardProfiles, 4> table = {
      CardProfiles{"A100-40G", SevenSliceProfiles(5, 10, 20, 40)},
      CardProfiles{"A100-80G", SevenSliceProfiles(10, 20, 40, 80)},
      CardProfiles{"H100", SevenSliceProfiles(10, 20, 40, 80)},
      CardProfiles{"H200", SevenSliceProfiles(18, 35, 71, 141)},
  };
  return table;
}

// Places instances[k..] on the free memory slices `used` (a bit per slice), largest first.
// Places instances[k..] on the memory slices not in `used`; `starts` (when given) receives
// each instance's start.
bool PlaceFrom(std::span<const MigProfile* const> instances, size_t k, unsigned used,
               int* starts = nullptr) {
  if (k == instances.size()) return true;
  const MigProfile& p = *instances[k];
  for (int start : p.starts) {
    const unsigned run = ((1u << p.memory_slices) - 1u) << start;
    if (start + p.memory_slices > kMigMemorySlices || (used & run) != 0) continue;
    if (starts != nullptr) starts[k] = start;
    if (PlaceFrom(instances, k + 1, used | run, starts)) return true;
  }
  return false;
}

// Largest runs first: they have the fewest starts, so the search fails early.
std::vector<size_t> LargestFirst(std::span<const MigProfile* const> instances) {
  std::vector<size_t> order(instances.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return instances[a]->memory_slices > instances[b]->memory_slices;
  });
  return order;
}

}  // namespace

std::span<const MigProfile> MigProfilesOf(std::string_view gpu_type) {
  for (const CardProfiles& card : Table())
    if (card.gpu_type == gpu_type) return card.profiles;
  return {};
}

const MigProfile* FindMigProfile(std::string_view gpu_type, std::string_view name) {
  for (const MigProfile& p : MigProfilesOf(gpu_type))
    if (p.name == name) return &p;
  return nullptr;
}

bool MigLayoutFits(std::span<const MigProfile* const> instances) {
  int compute = 0;
  for (const MigProfile* p : instances) compute += p->compute_slices;
  if (compute > kMigComputeSlices) return false;
  std::vector<const MigProfile*> order;
  for (size_t i : LargestFirst(instances)) order.push_back(instances[i]);
  return PlaceFrom(order, 0, 0);
}

std::vector<int> MigPlacementStarts(std::span<const MigProfile* const> instances) {
  if (!MigLayoutFits(instances)) return {};
  const std::vector<size_t> index = LargestFirst(instances);
  std::vector<const MigProfile*> order;
  for (size_t i : index) order.push_back(instances[i]);
  std::vector<int> placed(order.size());
  PlaceFrom(order, 0, 0, placed.data());
  std::vector<int> starts(instances.size());
  for (size_t k = 0; k < index.size(); ++k) starts[index[k]] = placed[k];
  return starts;
}

std::vector<MigPlacement> MigAllPlacements(std::string_view gpu_type) {
  std::vector<MigPlacement> out;
  for (const MigProfile& p : MigProfilesOf(gpu_type)) {
    for (int start : p.starts) {
      if (start + p.memory_slices <= kMigMemorySlices) out.push_back({&p, start});
    }
  }
  return out;
}

int MigMostInstances(const MigProfile& profile) {
  for (int n = kMigComputeSlices; n > 1; --n) {
    const std::vector<const MigProfile*> copies(n, &profile);
    if (MigLayoutFits(copies)) return n;
  }
  return 1;
}

std::string MigInstanceTypeName(std::string_view card, std::string_view profile) {
  std::string name(card);
  name.append(" MIG ").append(profile);
  return name;
}

GpuType MigInstanceType(const GpuType& card, const MigProfile& profile) {
  GpuType t;
  t.name = MigInstanceTypeName(card.name, profile.name);
  t.memory_mib = card.memory_mib * profile.memory_slices / kMigMemorySlices;
  t.speed = card.speed * profile.compute_slices / kMigComputeSlices;
  t.context_mib = card.context_mib;
  t.interconnect = "";  // an instance has no peer-to-peer link (the guide: P2P "No")
  t.source = "MIG " + profile.name + " of " + card.name + ": memory " +
             std::to_string(profile.memory_slices) + "/8 and speed " +
             std::to_string(profile.compute_slices) +
             "/7 of the card (NVIDIA MIG user guide fractions; models/mig_profiles.h)";
  return t;
}

}  // namespace knobsim
