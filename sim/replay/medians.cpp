#include "sim/replay/medians.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "sim/text.h"

namespace knobsim::replay {

namespace {

using Key = std::tuple<std::string, std::string, std::string>;  // workload, policy, tune

std::optional<double> MedianAt(const std::vector<const ResultRow*>& rows, int x) {
  std::vector<double> v;
  for (const ResultRow* r : rows) {
    if (!r->values[x]) return std::nullopt;
    v.push_back(*r->values[x]);
  }
  return Median(std::move(v));
}

}  // namespace

std::vector<MedianRow> AllocationMedians(std::span<const ResultRow> allo,
                                         std::span<const ResultRow> expected) {
  std::vector<Key> order;
  std::map<Key, std::vector<const ResultRow*>> groups;
  for (const ResultRow& r : allo) {
    const Key key{r.workload, r.sc_policy, r.tune};
    auto [it, added] = groups.try_emplace(key);
    if (added) order.push_back(key);
    it->second.push_back(&r);
  }
  std::map<std::tuple<std::string, std::string, std::string, int64_t>, const ResultRow*> ref;
  for (const ResultRow& r : expected) ref[{r.workload, r.sc_policy, r.tune, r.seed}] = &r;

  std::vector<MedianRow> out;
  for (const Key& key : order) {
    const std::vector<const ResultRow*>& rows = groups[key];
    MedianRow m;
    m.workload = std::get<0>(key);
    m.sc_policy = std::get<1>(key);
    m.seeds = static_cast<int>(rows.size());
    m.at100 = MedianAt(rows, 100);
    m.at130 = MedianAt(rows, 130);
    std::vector<const ResultRow*> same_seeds;
    for (const ResultRow* r : rows) {
      const auto it = ref.find({r->workload, r->sc_policy, r->tune, r->seed});
      if (it != ref.end()) same_seeds.push_back(it->second);
    }
    if (!same_seeds.empty() && same_seeds.size() == rows.size()) {
      m.expected100 = MedianAt(same_seeds, 100);
      m.expected130 = MedianAt(same_seeds, 130);
    }
    out.push_back(std::move(m));
  }
  return out;
}

std::string FormatMediansTable(std::span<const MedianRow> rows) {
  bool any_expected = false;
  size_t wl = 8;
  for (const MedianRow& m : rows) {
    any_expected = any_expected || m.expected100 || m.expected130;
    wl = std::max(wl, m.workload.size());
  }
  const auto num = [](const std::optional<double>& v) {
    return v ? fmt::format("{:.3f}", *v) : std::string("-");
  };
  const auto diff = [](const std::optional<double>& a, const std::optional<double>& b) {
    return a && b ? fmt::format("{:+.3f}", *a - *b) : std::string("-");
  };
  std::string out;
  if (any_expected) {
    out += fmt::format("{:<{}}  {:<16} {:>5}  {:>8} {:>8} {:>7}  {:>8} {:>8} {:>7}\n", "workload",
                       wl, "policy", "seeds", "x=100", "paper", "diff", "x=130", "paper", "diff");
  } else {
    out += fmt::format("{:<{}}  {:<16} {:>5}  {:>8}  {:>8}\n", "workload", wl, "policy", "seeds",
                       "x=100", "x=130");
  }
  for (const MedianRow& m : rows) {
    if (any_expected) {
      out += fmt::format("{:<{}}  {:<16} {:>5}  {:>8} {:>8} {:>7}  {:>8} {:>8} {:>7}\n", m.workload,
                         wl, m.sc_policy, m.seeds, num(m.at100), num(m.expected100),
                         diff(m.at100, m.expected100), num(m.at130), num(m.expected130),
                         diff(m.at130, m.expected130));
    } else {
      out += fmt::format("{:<{}}  {:<16} {:>5}  {:>8}  {:>8}\n", m.workload, wl, m.sc_policy,
                         m.seeds, num(m.at100), num(m.at130));
    }
  }
  return out;
}

}  // namespace knobsim::replay
