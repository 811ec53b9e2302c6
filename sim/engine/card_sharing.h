// CardSharing: the fluid model of pods sharing GPU cards, and the cards' memory.
//
//  * P is the set of pods whose GPU container runs on a card (JoinCards / LeaveCards); A, the
//    pods of P with a job in service. A pod's share of a card comes from models/sharing_policy.h
//    (ComputeShares over P); a multi-card pod takes the minimum of its shares. A pod with k jobs
//    in service advances each at speed * share * throughput_factor / k reference-ns per ns.
//  * Each pod keeps an `attained` counter: the progress of each of its jobs since the pod last
//    went idle. A job's finish is a fixed attained value (BeginJob), so a change of rate re-times
//    its completion without touching the job.
//  * Only the cards whose state changed are re-shared. Call Touch(p) BEFORE changing anything a
//    pod's cards depend on (its jobs, its membership in P, its memory): it brings the pod and its
//    cards up to now and marks the cards dirty. The kernel calls Flush() after every event: the
//    dirty cards are re-shared, their pods' rates updated, and each card's one kCardCompletion
//    event rescheduled when it moved.
//  * As it advances, each card integrates its busy, effective and switch-overhead time and its
//    memory over the measured window (after warm-up); RunRecorder reads them at the end.
//  * Memory: ChangeMemory under the card's isolation mode (models/memory_isolation.h).
//  * MPS (the device plugin's `mps` strategy): the active clients' shares are their progress
//    rates under models/mps_overlap.h — kernels of co-active clients overlap up to the card's
//    SMs, each capped at its active thread percentage, as its workload's gpu_profile allows;
//    without profiles each client's share is its cap (POLICY 3's fixed percentage). A share is
//    then progress, not card time: two light clients may each run at 1.
//  * Co-location (cluster.interference, docs/interference.md): on a natively time-sliced card
//    whose active pods all have a profile, a pod's share is the model's predicted speed beside
//    the other active pod — with three or more, the product of its speeds beside each of them
//    (an assumption: the pairs measured two), at most 1 — instead of POLICY 5's eta/|A|. The
//    measured speeds include the context switches, so eta is 1 there. An active pod without a
//    profile (`interference: none`) leaves the card to the POLICY split.
//  * Slice mode (cluster.time_slice, time_slices.h): the cards of native time-slicing and POLICY
//    0 take their shares from explicit round-robin slices instead, each slice's end an event.
//
// Hot path: the small calls are defined inline below, so that the request flow in another file
// still inlines them without LTO.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "models/interference.h"
#include "models/memory_isolation.h"
#include "models/mps_overlap.h"
#include "sim/engine/engine_state.h"
#include "sim/engine/time_slices.h"

namespace knobsim::engine {

class CardSharing {
 public:
  // One CardRun per card of the cluster, with its pool's isolation and sharing policy.
  explicit CardSharing(EngineState& state);

  // Brings the pod and its cards up to now and marks its cards dirty.
  void Touch(int32_t p);
  // Integrates the card's metrics up to now and advances the pods in its P (idempotent within an
  // instant).
  void AdvanceCard(int32_t c);
  void MarkDirty(int32_t c);
  // Re-shares the dirty cards and reschedules their completions (after every event).
  void Flush();

  // Changes the pod's memory on each of its cards by delta_mib. With `check`, an increase
  // happens only if it fits on every card under the card's isolation mode; returns whether it
  // happened.
  bool ChangeMemory(int32_t p, int64_t delta_mib, bool check);
  // The pod's GPU container starts (it enters P on its cards) or stops (it leaves P). Touch the
  // pod first.
  void JoinCards(int32_t p);
  void LeaveCards(int32_t p);

  // Job j (allocated, its requests attached) enters service on pod p with work_ns of
  // reference work. Touch the pod first.
  void BeginJob(int32_t p, int32_t j, double work_ns);
  // A kCardCompletion fired: every job on the card whose remaining work is at most its
  // progress in 1 ns leaves the pods' service heaps into `done` (in no particular order).
  void TakeFinishedJobs(int32_t c, std::vector<int32_t>& done);
  // Drops the aborted jobs at the top of the pod's service heap (PodRun::dead_jobs).
  void PopDeadJobs(PodRun& pod);
  // The warm-up is over: memory peaks count from now.
  void WarmupEnded();
  // A kSliceEnd event: the card's slice or switch ended (a stale generation does nothing).
  void EndSlice(int32_t c, uint32_t generation);

  HugeVector<CardRun> cards;

 private:
  void AdvancePod(PodRun& pod);
  // The timeline (RunOptions::timeline_step > 0): the card's state over [from, to) into its steps.
  void RecordSteps(CardRun& card, SimTime from, SimTime to);
  CardStep& StepAt(CardRun& card, SimTime t);
  void ScheduleCompletion(int32_t c);
  // The co-location model's shares for the card's active pods (card.shares, card.eta); false,
  // nothing changed, when an active pod has no profile.
  bool CoLocatedShares(CardRun& card);
  // MPS overlap (models/mps_overlap.h): the card's active clients' rates from their caps and
  // their workloads' GPU profiles (card.shares).
  void MpsShares(CardRun& card);
  // The service heap's order: a min-heap by finish.
  static bool FinishesLater(const ServiceEntry& a, const ServiceEntry& b) {
    return a.finish > b.finish;
  }

  EngineState& s_;
  std::vector<int32_t> dirty_;
  // cluster.interference: the model, each profiled workload's job (kNone: no profile) and the
  // jobs looked up once; scratch for the active pods' jobs of one card.
  const InterferenceModel* interference_ = nullptr;
  std::vector<int32_t> job_of_workload_;
  std::vector<ResolvedJob> jobs_;
  std::vector<std::pair<size_t, int32_t>> co_running_;
  TimeSlices slices_;  // cluster.time_slice: the sliced cards' round robins
  // MPS overlap: each workload's SM and bandwidth demand (its gpu_profile; no profile: the
  // whole card, no bandwidth), and scratch for one card's active clients.
  struct MpsDemand {
    double sm = 1;
    double dram = 0;
  };
  std::vector<MpsDemand> mps_demand_;
  std::vector<MpsClient> mps_clients_;
  std::vector<double> mps_rates_;
};

// ---------------------------------------------------------------------------------------------
// Inline definitions (the hot path)

inline void CardSharing::AdvancePod(PodRun& pod) {
  if (pod.jobs > 0) pod.attained += pod.rate * static_cast<double>(s_.now - pod.last_update);
  pod.last_update = s_.now;
}

inline CardStep& CardSharing::StepAt(CardRun& card, SimTime t) {
  const size_t k = static_cast<size_t>(t / s_.options.timeline_step);
  if (card.timeline.size() <= k) card.timeline.resize(k + 1);
  return card.timeline[k];
}

inline void CardSharing::AdvanceCard(int32_t c) {
  CardRun& card = cards[c];
  const SimTime now = s_.now;
  // Already advanced at this instant: its pods too (advancing is idempotent within an instant).
  if (card.last == now && now > 0) return;
  if (card.last < now) {
    const SimTime from = std::max(card.last, s_.warmup);
    if (now > from) {
      const double dt = static_cast<double>(now - from);
      if (card.active > 0) card.busy_ns += dt;
      card.effective_ns += card.sum_share * dt;
      // eta < 1: POLICY 5's overhead with two or more active pods, or a sliced card switching.
      if (card.eta < 1) card.switch_ns += (1 - card.eta) * dt;
      card.memory_integral += static_cast<double>(card.memory_used_mib) * dt;
    }
    if (card.active > 0) card.busy_total_ns += static_cast<double>(now - card.last);
    if (s_.options.timeline_step > 0) RecordSteps(card, card.last, now);
    card.last = now;
  }
  for (int32_t p : card.running) AdvancePod(s_.pods[p]);
}

inline void CardSharing::MarkDirty(int32_t c) {
  if (!cards[c].dirty) {
    cards[c].dirty = true;
    dirty_.push_back(c);
  }
}

inline void CardSharing::Touch(int32_t p) {
  for (int32_t c : s_.pods[p].cards) {
    AdvanceCard(c);
    MarkDirty(c);
  }
  AdvancePod(s_.pods[p]);
}

inline bool CardSharing::ChangeMemory(int32_t p, int64_t delta_mib, bool check) {
  PodRun& pod = s_.pods[p];
  if (check && delta_mib > 0) {
    for (int32_t c : pod.cards) {
      const CardRun& card = cards[c];
      AllocationCheck ac{card.isolation, pod.used_mib, pod.quota_mib, card.memory_used_mib,
                         card.physical_mib};
      if (!AllocationFits(ac, delta_mib)) return false;
    }
  }
  pod.used_mib += delta_mib;
  for (int32_t c : pod.cards) {
    CardRun& card = cards[c];
    card.memory_used_mib += delta_mib;
    if (s_.now >= s_.warmup)
      card.memory_peak_mib = std::max(card.memory_peak_mib, card.memory_used_mib);
    if (s_.options.timeline_step > 0) {
      CardStep& step = StepAt(card, s_.now);
      step.memory_peak_mib = std::max(step.memory_peak_mib, card.memory_used_mib);
    }
  }
  return true;
}

}  // namespace knobsim::engine
