// Cluster-autoscaler's expanders: which node group grows when several could take the pending
// pods. Read from kubernetes/autoscaler at commit f7bb0c36 (the last before the core moved to
// sigs.k8s.io/cluster-autoscaler):
//  * expander/factory/chain.go: `--expander` is a comma-separated chain of filters; each keeps
//    its best options, the chain stops when one is left, and what is still tied at the end is
//    decided by the random strategy (expander_factory.go: newChainStrategy(filters, random)).
//  * expander/random/random.go: rand.Int31n over the options.
//  * expander/mostpods/mostpods.go: the options that would schedule the most pods.
//  * expander/waste/waste.go (least-waste, the `--expander` default since 1.33.0): the lowest
//    wastedCPU + wastedMemory, each (available − requested) / available, where available is the
//    template node's capacity × NodeCount and requested is Σ the option's pods' requests; GPUs
//    are not looked at; ties are exact equality.
//  * expander/priority/priority.go: the options whose group the priority ConfigMap gives the
//    highest number (here each pool's `priority`); groups without one are dropped, and when no
//    option has one the filter keeps them all ("Falling back to random choice").
// No I/O and no clock: plain values in, an index out.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/random_stream.h"

namespace knobsim::autoscaling {

enum class ExpanderKind { kRandom, kMostPods, kLeastWaste, kPriority };

// One way to scale up (expander.Option): a node group, how many nodes it would add, and what
// the pods those nodes would schedule request.
struct ExpansionOption {
  int group = 0;       // the caller's index of the node group
  int node_count = 0;  // > 0
  int pods = 0;        // pods the new nodes would schedule
  int64_t requested_cpu_milli = 0;
  int64_t requested_memory_bytes = 0;
  int64_t node_cpu_milli = 0;  // the template node's capacity
  int64_t node_memory_bytes = 0;
  std::optional<int> priority;  // the priority expander's number for the group, if any
};

// "random", "most-pods", "least-waste", "priority", or a comma-separated chain of them.
// Upstream's other expanders (least-nodes, price, grpc) are not modelled: an error names them.
struct ExpanderParse {
  std::vector<ExpanderKind> chain;
  std::string error;  // empty when parsed
};
ExpanderParse ParseExpanderChain(std::string_view text);
std::string ExpanderChainName(const std::vector<ExpanderKind>& chain);

// The filter of one expander: the options it keeps (indexes into `options`, in their order).
std::vector<int> BestOptions(ExpanderKind kind, const std::vector<ExpansionOption>& options,
                             const std::vector<int>& among);

// The chain, then the random fallback (one draw from `random` when more than one is left).
// Returns an index into `options`; -1 when `options` is empty.
int ChooseExpansion(const std::vector<ExpansionOption>& options,
                    const std::vector<ExpanderKind>& chain, RandomStream& random);

}  // namespace knobsim::autoscaling
