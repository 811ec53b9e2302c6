// MPS overlap: how fast each co-active client of a card shared by CUDA MPS progresses, from its
// active-thread percentage and, where known, its measured GPU profile (docs/semantics.md §2.6,
// models/README.md §9).
//
// Under MPS the kernels of all clients run concurrently; CUDA_MPS_ACTIVE_THREAD_PERCENTAGE (the
// control daemon's default, which a client's environment may only lower: NVIDIA, "Multi-Process
// Service", Volta MPS execution resource provisioning) caps the part of the card's SMs each
// client's kernels may occupy. Each active client i has
//   - a cap a_i in (0, 1]: its active thread percentage / 100;
//   - an SM demand d_i in (0, 1]: the fraction of the card's SMs its kernels keep busy while they
//     run alone (GpuProfile::SmDemand; no profile: 1, the whole card);
//   - a memory-bandwidth demand b_i in [0, 1] (GpuProfile::DramDemand; no profile: 0).
// The rule:
//   1. SM fractions x_i by max-min fair water-filling of c_i = min(a_i, d_i) over the card,
//      Σx <= 1: when Σc fits, x_i = c_i; else a level L with Σ min(c_i, L) = 1 [assumption: the
//      hardware's block scheduler shares contended SMs max-min fairly among clients].
//   2. progress rate r_i = min(1, x_i / d_i) [assumption: a kernel's speed is proportional to the
//      SMs it gets, up to the SMs it can use; a job that keeps d of the card busy alone loses
//      nothing as long as it gets d].
//   3. memory bandwidth: B = Σ_j b_j r_j over the active clients; when B > 1 each client with
//      b_i > 0 progresses at r_i / B [assumption: the card's DRAM is shared in proportion to
//      demand, and a client that uses it waits for it in full; one without a measured b is not
//      slowed].
// With no profile anywhere and caps summing to at most 1 (the device plugin's 100/replicas), the
// rates are the caps: POLICY 3's fixed percentages, knobsim's MPS rule before profiles.
#pragma once

#include <optional>
#include <span>

namespace knobsim {

// A workload's measured GPU characteristics while it runs alone on a card: DCGM's profiling
// counters (ratios 0..1, as dcgm-exporter exports them; NVIDIA DCGM User Guide, "Profiling
// Metrics"). Each is optional: the import writes only what the metrics held.
struct GpuProfile {
  std::optional<double> sm_active;         // DCGM_FI_PROF_SM_ACTIVE
  std::optional<double> sm_occupancy;      // DCGM_FI_PROF_SM_OCCUPANCY
  std::optional<double> dram_active;       // DCGM_FI_PROF_DRAM_ACTIVE
  std::optional<double> tensor_active;     // DCGM_FI_PROF_PIPE_TENSOR_ACTIVE
  std::optional<double> gr_engine_active;  // DCGM_FI_PROF_GR_ENGINE_ACTIVE
  bool operator==(const GpuProfile&) const = default;

  // The fraction of the card's SMs the job's kernels occupy while they run: SM_ACTIVE (an SM
  // counts when at least one warp is resident) divided by GR_ENGINE_ACTIVE (the time any kernel
  // ran) when that is known, since both average over the sample period, idle time included;
  // SM_ACTIVE alone otherwise [assumption: the profile was taken under load]. Occupancy does not
  // enter: an SM with one warp of the client resident counts as the client's. In
  // [kMinSmDemand, 1]; 1 without sm_active.
  double SmDemand() const;
  // The fraction of the card's DRAM bandwidth the job uses while its kernels run: DRAM_ACTIVE,
  // divided by GR_ENGINE_ACTIVE as above; 0 without dram_active.
  double DramDemand() const;
};

// A demand below this (a job that runs kernels on almost no SMs) is read as this: the rate
// x / d must stay finite.
inline constexpr double kMinSmDemand = 0.01;

struct MpsClient {
  double cap = 1;     // active thread percentage / 100, in (0, 1]
  double demand = 1;  // SM demand d, in (0, 1]
  double dram = 0;    // memory-bandwidth demand b, in [0, 1]
};

// Writes each client's progress rate (the fraction of its solo speed) into `rates` (same size).
// Every client is active. No allocation: `rates` is the water-filling's scratch.
void MpsRates(std::span<const MpsClient> clients, std::span<double> rates);

}  // namespace knobsim
