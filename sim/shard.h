// Shard: one slice of a sweep (`--shard i/N`), so that a large sweep runs as N independent
// processes — a Kubernetes Indexed Job's pods, say (docs/kubernetes-job.md) — and `knobsim merge`
// puts the pieces back together.
//
// A sweep is a list of independent jobs in a fixed order (variants × replications, the plan's
// grid cells, the replay's policy × seed runs). Shard i of N owns job j when j mod N == i: the
// split needs no coordination, balances long and short jobs that alternate in the list, and
// depends only on the job list, never on the machine or the thread count.
#pragma once

#include <string>
#include <string_view>

#include "sim/input_error.h"

namespace knobsim {

struct Shard {
  int index = 0;  // 0-based, as Kubernetes' JOB_COMPLETION_INDEX
  int count = 1;  // N >= 1; 1 = the whole sweep

  bool Owns(long long job) const { return count <= 1 || job % count == index; }
  bool whole() const { return count <= 1; }
};

// Reads "i/N" (0 <= i < N). The error is only a message: the caller names the option.
Expected<Shard> ParseShard(std::string_view text);

// "i/N".
std::string ShardText(const Shard& shard);

}  // namespace knobsim
