// The cluster-autoscaler's backoff of a node group whose scale-up failed (utils/backoff/
// exponential_backoff.go, flags --initial-node-group-backoff-duration 5m,
// --max-node-group-backoff-duration 30m, --node-group-backoff-reset-timeout 3h; FAQ.md): a
// failure backs the group off for the initial duration; a failure after the backoff ran out
// doubles the previous duration (capped at the maximum), one during it keeps the duration (so
// several nodes of one scale-up failing together back off once); a failure more than the reset
// timeout after the previous one starts again at the initial duration. While backed off the
// group is no scale-up option ("in backoff after failed scale-up"). No I/O and no clock.
#pragma once

#include "sim/cluster_autoscaler_spec.h"

namespace knobsim::autoscaling {

class NodeGroupBackoff {
 public:
  // A scale-up of the group failed at `now`; returns the end of its backoff.
  SimTime Fail(SimTime now, const NodeGroupBackoffSettings& settings);
  // Whether the group is backed off at `now` (the end itself is out: upstream's
  // backoffUntil.After(now)).
  bool Active(SimTime now) const { return failed_ && until_ > now; }
  SimTime duration() const { return duration_; }

 private:
  bool failed_ = false;
  SimTime duration_ = 0;
  SimTime until_ = 0;
  SimTime last_failure_ = 0;
};

}  // namespace knobsim::autoscaling
