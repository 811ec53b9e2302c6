// MigProfiles: the MIG instances a card can be cut into, which sets of them fit one card, and
// what one instance is as a card of its own.
//
// Geometry (NVIDIA Multi-Instance GPU User Guide, "Supported MIG Profiles"; the placements are
// what `nvidia-smi mig -lgipp` lists): the 7-slice cards here — A100 40 GB and 80 GB, H100 80 GB,
// H200 141 GB — have 7 compute slices and 8 memory slices. A GPU instance profile `<g>g.<m>gb`
// takes g compute slices and a run of memory slices starting at one of its allowed offsets:
//
//   profile kind          memory slices  starts        at most   A100-40G / A100-80G, H100 / H200
//   1g, small memory      1              0..6          7         1g.5gb  / 1g.10gb / 1g.18gb
//   1g, double memory     2              0, 2, 4, 6    4         1g.10gb / 1g.20gb / 1g.35gb
//   2g                    2              0, 2, 4       3         2g.10gb / 2g.20gb / 2g.35gb
//   3g                    4              0, 4          2         3g.20gb / 3g.40gb / 3g.71gb
//   4g                    4              0             1         4g.20gb / 4g.40gb / 4g.71gb
//   7g                    8              0             1         7g.40gb / 7g.80gb / 7g.141gb
//
// A set of instances fits a card when each takes one of its starts with no memory slice held
// twice and at most 7 compute slices in all ("3g.40gb + 2g.20gb + 1g.10gb × 2" fits: 3g at 4,
// 2g at 0, the 1g at 2 and 3). The media-extension profiles (`+me`) are not in the table.
//
// One instance as a card (assumption, docs/semantics.md §2.7): MIG isolates an instance's SMs,
// L2 and memory, so it shares nothing with the card's other instances. Its memory is the guide's
// fraction of the card's, memory slices / 8 of NVML's total (NVML reports a little less: 9.75 GiB
// for an H100 1g.10gb against 1/8 of 79.6 GiB); its speed is the guide's fraction of SMs, g / 7
// of the card's (an H100 1g holds 16 of 132 SMs, 0.12 against 0.14). Work runs at the instance's
// speed with nothing co-running: a MIG instance is an exclusive smaller card.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "models/gpu_catalog.h"

namespace knobsim {

struct MigProfile {
  std::string name;         // as the device plugin spells it: "1g.10gb"
  int compute_slices = 0;   // g, of 7
  int memory_slices = 0;    // of 8
  std::vector<int> starts;  // memory-slice offsets the instance may start at
  // NVML's GPU instance profile ID (`nvidia-smi mig -lgip`: 19 for the small 1g, 15 for the
  // double-memory 1g, 14, 9, 5, 0 for 2g, 3g, 4g, 7g), part of the NVIDIA DRA driver's names.
  int gi_profile_id = 0;
};

inline constexpr int kMigComputeSlices = 7;
inline constexpr int kMigMemorySlices = 8;

// The profiles of a catalog card type ("A100-40G", "A100-80G", "H100", "H200"); empty when
// knobsim has no MIG geometry for it (not MIG-capable, or not in the table above).
std::span<const MigProfile> MigProfilesOf(std::string_view gpu_type);

// The profile `name` of `gpu_type`; nullptr when the card has no such profile.
const MigProfile* FindMigProfile(std::string_view gpu_type, std::string_view name);

// Whether the instances fit one card together (each at one of its starts, no memory slice
// shared, at most 7 compute slices). An empty set fits.
bool MigLayoutFits(std::span<const MigProfile* const> instances);

// Where each instance starts (its first memory slice), in the order given: the placement
// MigLayoutFits finds (larger instances placed first, each at its lowest free start). Empty when
// they do not fit.
std::vector<int> MigPlacementStarts(std::span<const MigProfile* const> instances);

// One place a profile's instance can take on a card: the profile and its first memory slice.
struct MigPlacement {
  const MigProfile* profile = nullptr;
  int start = 0;
};

// Every placement of every profile of `gpu_type`, in the table's profile order and by start:
// the MIG devices the NVIDIA DRA driver publishes for a card under its DynamicMIG gate (beside
// the whole card), any of which it creates when a claim is allocated. Empty without geometry.
std::vector<MigPlacement> MigAllPlacements(std::string_view gpu_type);

// How many instances of `profile` alone fit one card (the guide's "Number of Instances
// Available": 7 for a small 1g, 4, 3, 2, 1, 1).
int MigMostInstances(const MigProfile& profile);

// The name an instance has as a card type: "<card> MIG <profile>", e.g. "H100 MIG 1g.10gb".
std::string MigInstanceTypeName(std::string_view card, std::string_view profile);

// One instance of `profile` on a `card` as a card type of its own (the assumption above).
GpuType MigInstanceType(const GpuType& card, const MigProfile& profile);

}  // namespace knobsim
