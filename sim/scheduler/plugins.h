// The in-tree filter and score plugins knobsim implements, one file each under
// sim/scheduler/filters/ and sim/scheduler/scores/, the ACK GPU-share plugin and HAMi's extender.
#pragma once

#include <memory>

#include "sim/scheduler/framework.h"
#include "sim/scheduler/scheduler.h"

namespace knobsim {

// Filters, in upstream order.
std::unique_ptr<FilterPlugin> NewNodeUnschedulableFilter();
std::unique_ptr<FilterPlugin> NewTaintTolerationFilter(const KubeVersion& version);
std::unique_ptr<FilterPlugin> NewNodeAffinityFilter(const KubeVersion& version);
std::unique_ptr<FilterPlugin> NewNodePortsFilter();
std::unique_ptr<FilterPlugin> NewNodeResourcesFitFilter(const KubeVersion& version);
std::unique_ptr<FilterPlugin> NewVolumeRestrictionsFilter();
std::unique_ptr<FilterPlugin> NewVolumeBindingFilter();
std::unique_ptr<FilterPlugin> NewVolumeZoneFilter();
std::unique_ptr<FilterPlugin> NewPodTopologySpreadFilter();
std::unique_ptr<FilterPlugin> NewInterPodAffinityFilter();
// DRA claims (filters/dynamic_resources.cpp).
std::unique_ptr<DynamicResourcesPlugin> NewDynamicResourcesFilter(const KubeVersion& version);
std::unique_ptr<FilterPlugin> NewGpuShareFilter(const SchedulerConfig& config);
// HAMi's scheduler extender (hami_devices.h), after every plugin, for pods with HAMi requests.
std::unique_ptr<FilterPlugin> NewHamiFilter();

// Scores, with their default weights (§3.1). NewNodeResourcesFitScore throws
// std::invalid_argument on a strategy other than LeastAllocated / MostAllocated: a programming
// error, not bad input (the command line maps --scoring onto one of the two).
std::unique_ptr<ScorePlugin> NewTaintTolerationScore();                              // 3
std::unique_ptr<ScorePlugin> NewNodeAffinityScore();                                 // 2
std::unique_ptr<ScorePlugin> NewNodeResourcesFitScore(const std::string& strategy);  // 1
std::unique_ptr<ScorePlugin> NewPodTopologySpreadScore();                            // 2
std::unique_ptr<ScorePlugin> NewInterPodAffinityScore(int hard_pod_affinity_weight);  // 2
std::unique_ptr<ScorePlugin> NewBalancedAllocationScore();                           // 1
std::unique_ptr<ScorePlugin> NewImageLocalityScore();                                // 1
// Scores what `filter` allocates (its PreFilter runs first in the same cycle); from 1.35.
std::unique_ptr<ScorePlugin> NewDynamicResourcesScore(const DynamicResourcesPlugin& filter,
                                                      const KubeVersion& version);  // 1
std::unique_ptr<ScorePlugin> NewGpuShareScore(const SchedulerConfig& config);  // config weight

}  // namespace knobsim
