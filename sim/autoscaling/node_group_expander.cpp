#include "sim/autoscaling/node_group_expander.h"

#include <limits>

namespace knobsim::autoscaling {

namespace {

struct NamedExpander {
  std::string_view name;
  ExpanderKind kind;
};
constexpr NamedExpander kExpanders[] = {
    {"random", ExpanderKind::kRandom},
    {"most-pods", ExpanderKind::kMostPods},
    {"least-waste", ExpanderKind::kLeastWaste},
    {"priority", ExpanderKind::kPriority},
};

std::string_view NameOf(ExpanderKind kind) {
  for (const NamedExpander& e : kExpanders)
    if (e.kind == kind) return e.name;
  return "?";
}

// waste.go: (available − requested) / available over cpu, plus the same over memory.
double WastedScore(const ExpansionOption& o) {
  const double cpu = static_cast<double>(o.node_cpu_milli) * o.node_count;
  const double memory = static_cast<double>(o.node_memory_bytes) * o.node_count;
  const double wasted_cpu = (cpu - static_cast<double>(o.requested_cpu_milli)) / cpu;
  const double wasted_memory = (memory - static_cast<double>(o.requested_memory_bytes)) / memory;
  return wasted_cpu + wasted_memory;
}

}  // namespace

ExpanderParse ParseExpanderChain(std::string_view text) {
  ExpanderParse out;
  if (text.empty()) {
    out.error = "no expander named";
    return out;
  }
  // Upstream splits on ',' without trimming: "priority, random" names " random".
  size_t from = 0;
  while (from <= text.size()) {
    size_t comma = text.find(',', from);
    if (comma == std::string_view::npos) comma = text.size();
    const std::string_view name = text.substr(from, comma - from);
    from = comma + 1;
    const NamedExpander* found = nullptr;
    for (const NamedExpander& e : kExpanders)
      if (e.name == name) found = &e;
    if (found == nullptr) {
      out.chain.clear();
      out.error = "unknown expander '" + std::string(name) +
                  "' (knobsim models random, most-pods, least-waste, priority; least-nodes, "
                  "price and grpc are not modelled)";
      return out;
    }
    out.chain.push_back(found->kind);
  }
  return out;
}

std::string ExpanderChainName(const std::vector<ExpanderKind>& chain) {
  std::string out;
  for (ExpanderKind kind : chain) {
    if (!out.empty()) out += ',';
    out += NameOf(kind);
  }
  return out;
}

std::vector<int> BestOptions(ExpanderKind kind, const std::vector<ExpansionOption>& options,
                             const std::vector<int>& among) {
  std::vector<int> best;
  switch (kind) {
    case ExpanderKind::kRandom:
      return among;
    case ExpanderKind::kMostPods: {
      int most = -1;
      for (int i : among) {
        if (options[i].pods > most) {
          most = options[i].pods;
          best.clear();
        }
        if (options[i].pods == most) best.push_back(i);
      }
      return best;
    }
    case ExpanderKind::kLeastWaste: {
      double least = std::numeric_limits<double>::infinity();
      for (int i : among) {
        const ExpansionOption& o = options[i];
        // No template capacity: upstream logs "No node info" and skips the option.
        if (o.node_cpu_milli <= 0 || o.node_memory_bytes <= 0 || o.node_count <= 0) continue;
        const double score = WastedScore(o);
        if (best.empty() || score < least) {
          least = score;
          best.clear();
        }
        if (score == least) best.push_back(i);
      }
      return best;
    }
    case ExpanderKind::kPriority: {
      int highest = std::numeric_limits<int>::min();
      for (int i : among) {
        if (!options[i].priority) continue;
        if (best.empty() || *options[i].priority > highest) {
          highest = *options[i].priority;
          best.clear();
        }
        if (*options[i].priority == highest) best.push_back(i);
      }
      return best.empty() ? among : best;
    }
  }
  return among;
}

int ChooseExpansion(const std::vector<ExpansionOption>& options,
                    const std::vector<ExpanderKind>& chain, RandomStream& random) {
  std::vector<int> left;
  for (int i = 0; i < static_cast<int>(options.size()); ++i) left.push_back(i);
  for (ExpanderKind kind : chain) {
    left = BestOptions(kind, options, left);
    if (left.size() == 1) return left[0];
  }
  if (left.empty()) return -1;
  if (left.size() == 1) return left[0];
  return left[static_cast<size_t>(random.Below(left.size()))];
}

}  // namespace knobsim::autoscaling
