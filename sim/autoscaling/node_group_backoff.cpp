#include "sim/autoscaling/node_group_backoff.h"

#include <algorithm>

namespace knobsim::autoscaling {

SimTime NodeGroupBackoff::Fail(SimTime now, const NodeGroupBackoffSettings& settings) {
  SimTime duration = settings.initial;
  if (failed_) {
    // Failures during a backoff (several nodes of one scale-up) do not lengthen it.
    duration = until_ < now ? std::min(2 * duration_, settings.max) : duration_;
    if (last_failure_ + settings.reset_after < now) duration = settings.initial;
  }
  failed_ = true;
  duration_ = duration;
  until_ = now + duration;
  last_failure_ = now;
  return until_;
}

}  // namespace knobsim::autoscaling
