// The pre-upgrade checklist of `knobsim check` (docs/check.md): seven checks over a CheckInput,
// each finding with a fixed id, a severity, the objects involved, a message and, where one
// exists, the consequence of upgrading the cGPU module now — simulated when a scenario is at
// hand (memory isolation hard on every cGPU pool, ConsequenceRun), else worked out analytically
// and marked so. A check whose input is absent says so in one `info` finding with `skipped`.
//
// Ids: quota-vs-peak, port-only-probe, pdb-blocks-drain, image-after-reset, pvc-without-backup,
// cgpu-isolation, quota-headroom. Findings are ordered by severity (critical first), then by the
// order of the ids above, then by their first object; deterministic for the same input.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/check/check_input.h"
#include "sim/check/registry_tags.h"
#include "sim/event_queue.h"

namespace knobsim {

enum class Severity { kCritical, kWarning, kInfo };
const char* SeverityName(Severity s);  // "critical", "warning", "info"

struct ObjectRef {
  std::string kind;  // Pod, Node, PodDisruptionBudget, PersistentVolumeClaim, ResourceQuota, ...
  std::string ns;    // empty for cluster-scoped objects
  std::string name;
  std::string ToString() const;  // "Pod ai/ocr-0", "Node gpu-a10-1"
  auto operator<=>(const ObjectRef&) const = default;
};

struct Finding {
  std::string id;
  Severity severity = Severity::kInfo;
  std::vector<ObjectRef> objects;
  std::string message;
  std::string consequence;       // empty when none
  std::string consequence_kind;  // "simulated" | "analytic" | ""
  std::string skipped;           // what input is missing; empty when the check ran
};

struct CheckOptions {
  double warning_ratio = 0.90;  // quota-vs-peak: peak / visible quota (docs/design.md §1, item 2)
  double critical_ratio = 1.00;
  // Pod annotations that mark its volumes as backed up (the `knobsim import` defaults).
  std::vector<std::string> backup_annotations = ImportOptions{}.backup_annotations;
  std::optional<RegistryTags> registry_tags;  // --registry-tags
  // The consequence run: how long the scenario is simulated with isolation hard. Ten minutes
  // covers image pull and model load of the usual inference image and a few minutes of traffic.
  SimTime consequence_duration = 600 * kNanosPerSecond;
  bool simulate = true;
};

struct CheckReport {
  std::string origin;  // "export" | "scenario"
  std::vector<Finding> findings;
  // How the consequence was found: the run's settings, or why it was analytic only.
  std::string consequence_note;
  std::vector<std::string> warnings;
  int Count(Severity s) const;
};

CheckReport RunChecks(const CheckInput& input, const CheckOptions& options);

// The order of the ids, for sorting and documentation.
extern const std::vector<std::string> kCheckIds;

}  // namespace knobsim
