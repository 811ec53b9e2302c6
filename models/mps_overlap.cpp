#include "models/mps_overlap.h"

#include <algorithm>

namespace knobsim {

namespace {

// Caps that sum to 1 in decimal (5 × 0.2) may sum to a hair above 1 in binary: such demands
// still fit, and each client keeps exactly its cap.
constexpr double kFitTolerance = 1e-9;

// The part of the sample period the kernels ran, when known and positive.
double Busy(const GpuProfile& p) {
  return p.gr_engine_active && *p.gr_engine_active > 0 ? *p.gr_engine_active : 1.0;
}

}  // namespace

double GpuProfile::SmDemand() const {
  if (!sm_active) return 1;
  return std::clamp(*sm_active / Busy(*this), kMinSmDemand, 1.0);
}

double GpuProfile::DramDemand() const {
  if (!dram_active) return 0;
  return std::clamp(*dram_active / Busy(*this), 0.0, 1.0);
}

void MpsRates(std::span<const MpsClient> clients, std::span<double> rates) {
  const size_t n = clients.size();
  double want = 0;
  for (const MpsClient& c : clients) want += std::min(c.cap, c.demand);
  if (want <= 1 + kFitTolerance) {
    for (size_t i = 0; i < n; ++i) rates[i] = std::min(clients[i].cap, clients[i].demand);
  } else {
    // Water-filling: clients asking at most the even split of what is left get what they ask;
    // repeat until none does, then the rest share it evenly. rates[i] < 0 marks "not yet set".
    std::fill(rates.begin(), rates.end(), -1.0);
    double left = 1;
    size_t open = n;
    for (bool settled = true; settled && open > 0;) {
      settled = false;
      const double level = left / static_cast<double>(open);
      for (size_t i = 0; i < n; ++i) {
        const double c = std::min(clients[i].cap, clients[i].demand);
        if (rates[i] < 0 && c <= level) {
          rates[i] = c;
          left -= c;
          --open;
          settled = true;
        }
      }
    }
    const double level = open > 0 ? left / static_cast<double>(open) : 0;
    for (size_t i = 0; i < n; ++i)
      if (rates[i] < 0) rates[i] = level;
  }
  // SM fraction -> progress, then the bandwidth the clients would use at those rates.
  double bandwidth = 0;
  for (size_t i = 0; i < n; ++i) {
    rates[i] = std::min(1.0, rates[i] / clients[i].demand);
    bandwidth += clients[i].dram * rates[i];
  }
  if (bandwidth > 1)
    for (size_t i = 0; i < n; ++i)
      if (clients[i].dram > 0) rates[i] /= bandwidth;
}

}  // namespace knobsim
