#include "sim/engine/card_sharing.h"

#include <cmath>
#include <limits>

namespace knobsim::engine {

CardSharing::CardSharing(EngineState& state)
    : s_(state), slices_(state, state.scenario.cluster.time_slice, state.cluster.cards.size()) {
  const Scenario& scenario = s_.scenario;
  cards.resize(s_.cluster.cards.size());
  for (size_t c = 0; c < cards.size(); ++c) {
    const Card& card = s_.cluster.cards[c];
    const NodePool& pool = scenario.node_pools[s_.cluster.nodes[card.node].pool];
    CardRun& run = cards[c];
    run.speed = card.gpu->speed;
    run.physical_mib = card.gpu->memory_mib;
    run.units = card.units;
    run.isolation = pool.isolation;
    run.params.max_inst = scenario.cluster.max_inst;
    run.params.switch_overhead = scenario.cluster.switch_overhead;
    // Where cGPU does not run (share nodes, cgpu.disable.isolation, whole-GPU nodes), the
    // driver's own time-slicing shares compute whatever the cluster POLICY (docs/design.md §3.2).
    run.params.policy = pool.cgpu_active ? scenario.cluster.policy : SharingPolicy::kNative;
    // MPS clients run side by side, each capped at its active-thread percentage (100 / replicas
    // unless the pool says otherwise), overlapping up to the card's SMs as their GPU profiles
    // allow (MpsShares; without profiles POLICY 3's fixed percentage, docs/semantics.md §2.6).
    // Time-sliced replicas are the driver's native time-slicing, as above.
    if (pool.device_sharing.strategy == DeviceSharingStrategy::kMps) {
      run.params.policy = SharingPolicy::kFixedPercent;
      run.mps_overlap = true;
    }
    // HAMi-core throttles each pod to its gpucores over the driver's time-slicing, while another
    // pod is active on the card (its default policy) or always (force); `disable` never does.
    if (pool.hami.enabled() && pool.hami.core_policy != HamiCorePolicy::kDisable) {
      run.params.policy = SharingPolicy::kCappedTimeSlicing;
      run.params.caps_when_alone = pool.hami.core_policy == HamiCorePolicy::kForce;
    }
    run.co_location =
        scenario.cluster.interference != nullptr && run.params.policy == SharingPolicy::kNative;
    // The scenario reader refused slice mode beside any other rule (CheckTimeSlice).
    run.sliced = scenario.cluster.time_slice.enabled() && !run.co_location &&
                 (run.params.policy == SharingPolicy::kNative ||
                  run.params.policy == SharingPolicy::kFixedEqual);
  }
  mps_demand_.reserve(scenario.workloads.size());
  for (const Workload& w : scenario.workloads) {
    const GpuProfile profile = w.gpu_profile.value_or(GpuProfile{});
    mps_demand_.push_back({profile.SmDemand(), profile.DramDemand()});
  }
  if (const InterferenceSetup* setup = scenario.cluster.interference.get()) {
    interference_ = &setup->model;
    job_of_workload_.assign(scenario.workloads.size(), kNone);
    for (size_t w = 0; w < scenario.workloads.size(); ++w) {
      if (!scenario.workloads[w].interference) continue;
      job_of_workload_[w] = static_cast<int32_t>(jobs_.size());
      jobs_.push_back(interference_->Resolve(*scenario.workloads[w].interference));
    }
  }
}

bool CardSharing::CoLocatedShares(CardRun& card) {
  co_running_.clear();
  for (size_t i = 0; i < card.running.size(); ++i) {
    if (!card.view[i].active) continue;
    const int32_t job = job_of_workload_[s_.pods[card.running[i]].workload];
    if (job == kNone) return false;
    co_running_.emplace_back(i, job);
  }
  for (const auto& [i, victim] : co_running_) {
    double share = 1;
    for (const auto& [k, aggressor] : co_running_)
      if (k != i) share *= interference_->Speed(jobs_[victim], jobs_[aggressor]);
    card.shares[i] = std::min(1.0, share);
  }
  card.eta = 1;
  return true;
}

void CardSharing::MpsShares(CardRun& card) {
  mps_clients_.clear();
  for (size_t i = 0; i < card.running.size(); ++i) {
    if (!card.view[i].active) continue;
    const auto [demand, dram] = mps_demand_[s_.pods[card.running[i]].workload];
    mps_clients_.push_back({std::min(1.0, card.view[i].percent / 100), demand, dram});
  }
  mps_rates_.resize(mps_clients_.size());
  MpsRates(mps_clients_, mps_rates_);
  for (size_t i = 0, k = 0; i < card.running.size(); ++i)
    card.shares[i] = card.view[i].active ? mps_rates_[k++] : 0;
}

void CardSharing::JoinCards(int32_t p) {
  PodRun& pod = s_.pods[p];
  pod.in_p = true;
  for (int32_t c : pod.cards) {
    cards[c].running.push_back(p);
    cards[c].membership_changed = true;
  }
}

void CardSharing::LeaveCards(int32_t p) {
  PodRun& pod = s_.pods[p];
  for (int32_t c : pod.cards) {
    auto& running = cards[c].running;
    running.erase(std::find(running.begin(), running.end(), p));
    cards[c].membership_changed = true;
  }
  pod.in_p = false;
}

void CardSharing::BeginJob(int32_t p, int32_t j, double work_ns) {
  PodRun& pod = s_.pods[p];
  if (pod.jobs == 0) {
    // Rebasing while idle keeps the counter small and exact; whatever is left in the service
    // heap then is dead (aborted) jobs.
    for (const ServiceEntry& dead : pod.service) s_.FreeJob(dead.job);
    pod.service.clear();
    pod.dead_jobs = 0;
    pod.attained = 0;
    pod.last_update = s_.now;
  }
  Job& job = s_.jobs[j];
  job.finish = pod.attained + work_ns;
  job.in_service = true;
  pod.service.push_back({job.finish, j});
  std::push_heap(pod.service.begin(), pod.service.end(), FinishesLater);
  ++pod.jobs;
}

void CardSharing::TakeFinishedJobs(int32_t c, std::vector<int32_t>& done) {
  CardRun& card = cards[c];
  card.scheduled = -1;
  AdvanceCard(c);
  done.clear();
  for (int32_t p : card.running) {
    PodRun& pod = s_.pods[p];
    if (pod.jobs == 0) continue;
    const double slack = pod.rate * 1.0 + 1e-13 * std::max(1.0, pod.attained);
    while (!pod.service.empty()) {
      PopDeadJobs(pod);
      if (pod.service.empty()) break;
      const ServiceEntry top = pod.service.front();
      if (top.finish - pod.attained > slack) break;
      std::pop_heap(pod.service.begin(), pod.service.end(), FinishesLater);
      pod.service.pop_back();
      done.push_back(top.job);
    }
  }
}

void CardSharing::PopDeadJobs(PodRun& pod) {
  while (pod.dead_jobs > 0 && !pod.service.empty() &&
         !s_.jobs[pod.service.front().job].in_service) {
    std::pop_heap(pod.service.begin(), pod.service.end(), FinishesLater);
    s_.FreeJob(pod.service.back().job);
    pod.service.pop_back();
    --pod.dead_jobs;
  }
}

void CardSharing::EndSlice(int32_t c, uint32_t generation) {
  if (!slices_.Fire(c, generation)) return;
  // A completion due within the clock's 1 ns goes first (a job whose remaining work rounds up
  // to the next ns): the slice that did the work keeps it instead of a whole round's wait.
  const SimTime due = cards[c].scheduled;
  if (due >= s_.now && due <= s_.now + 1) {
    slices_.Delay(c, due);
    return;
  }
  AdvanceCard(c);
  cards[c].membership_changed = true;  // the shares change though neither P nor A did
  MarkDirty(c);
}

void CardSharing::WarmupEnded() {
  for (CardRun& card : cards)
    card.memory_peak_mib = std::max(card.memory_peak_mib, card.memory_used_mib);
}

// Multi-card pods take the minimum of their shares.
void CardSharing::Flush() {
  if (dirty_.empty()) return;
  for (int32_t c : dirty_) {
    CardRun& card = cards[c];
    const size_t n = card.running.size();
    // Shares depend only on P and on which pods are active: when neither changed (a pod went
    // from one job to the next), the last shares still hold and only rates move.
    bool same = !card.membership_changed;
    for (size_t i = 0; same && i < n; ++i)
      same = card.view[i].active == (s_.pods[card.running[i]].jobs > 0);
    if (same) continue;
    card.view.resize(n);
    card.shares.resize(n);
    card.active = 0;
    // A pod's weight and percent are set when it is bound, before it joins P: read them only
    // when P changed (they are further from the progress than the view).
    for (size_t i = 0; i < n; ++i) {
      const PodRun& pod = s_.pods[card.running[i]];
      if (card.membership_changed) card.view[i] = PodOnCard{false, pod.weight, pod.percent};
      card.view[i].active = pod.jobs > 0;
      card.active += pod.jobs > 0;
    }
    card.membership_changed = false;
    if (card.sliced) {
      slices_.Share(c, card);
    } else if (card.mps_overlap) {
      MpsShares(card);  // no context switches: eta 1
      card.eta = 1;
    } else {
      card.eta = ComputeShares(card.params, {card.view.data(), card.view.size()},
                               {card.shares.data(), card.shares.size()});
      if (card.co_location && card.active >= 2) CoLocatedShares(card);
    }
    card.sum_share = 0;
    for (size_t i = 0; i < n; ++i) {
      card.sum_share += card.shares[i];
      PodRun& pod = s_.pods[card.running[i]];
      if (pod.one_card) continue;  // its share is this card's (the rates below)
      for (size_t k = 0; k < pod.cards.size(); ++k)
        if (pod.cards[k] == c) pod.share_on[k] = card.shares[i];
    }
  }
  const size_t touched = dirty_.size();
  for (size_t d = 0; d < touched; ++d) {
    CardRun& card = cards[dirty_[d]];
    for (size_t i = 0; i < card.running.size(); ++i) {
      PodRun& pod = s_.pods[card.running[i]];
      if (pod.jobs == 0) {
        pod.rate = 0;
        continue;
      }
      if (pod.one_card) {
        pod.rate = card.speed * card.shares[i] * pod.throughput_factor / pod.jobs;
        continue;
      }
      const double share = *std::min_element(pod.share_on.begin(), pod.share_on.end());
      pod.rate = card.speed * share * pod.throughput_factor / pod.jobs;
      // A multi-card pod's new rate moves the completions of its other cards too.
      for (int32_t other : pod.cards) MarkDirty(other);
    }
  }
  for (int32_t c : dirty_) {
    ScheduleCompletion(c);
    if (cards[c].sliced) slices_.Schedule(c);
    cards[c].dirty = false;
  }
  dirty_.clear();
}

void CardSharing::ScheduleCompletion(int32_t c) {
  CardRun& card = cards[c];
  const SimTime now = s_.now;
  double best = std::numeric_limits<double>::infinity();
  for (int32_t p : card.running) {
    PodRun& pod = s_.pods[p];
    if (pod.jobs == 0 || pod.rate <= 0) continue;
    PopDeadJobs(pod);
    const double attained = pod.attained + pod.rate * static_cast<double>(now - pod.last_update);
    const double remaining = pod.service.front().finish - attained;
    best = std::min(best, remaining / pod.rate);
  }
  if (!std::isfinite(best)) {
    if (card.scheduled >= 0) {
      ++card.generation;
      card.scheduled = -1;
    }
    return;
  }
  const SimTime at = now + std::max<SimTime>(0, static_cast<SimTime>(std::ceil(best)));
  if (at == card.scheduled) return;
  ++card.generation;
  card.scheduled = at;
  s_.queue.Push(at, kCardCompletion, static_cast<uint32_t>(c), card.generation);
}

// The card's state is constant over [from, to): split it at the step boundaries. A step's memory
// peak is at least the memory held at any moment of it (ChangeMemory raises it in between).
void CardSharing::RecordSteps(CardRun& card, SimTime from, SimTime to) {
  const SimTime step = s_.options.timeline_step;
  const double busy = card.active > 0 ? 1.0 : 0.0;
  const double memory = static_cast<double>(card.memory_used_mib);
  for (SimTime t = from; t < to;) {
    const SimTime until = std::min((t / step + 1) * step, to);
    CardStep& at = StepAt(card, t);
    const double dt = static_cast<double>(until - t);
    at.busy_ns += busy * dt;
    at.effective_ns += card.sum_share * dt;
    at.memory_integral += memory * dt;
    at.memory_peak_mib = std::max(at.memory_peak_mib, card.memory_used_mib);
    t = until;
  }
}

}  // namespace knobsim::engine
