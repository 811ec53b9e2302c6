// ResultsDiff: two results documents (docs/results.md) compared workload by workload, card by
// card and pod by pod, and the regression rules that turn the comparison into a CI gate
// (`knobsim diff`, docs/diff.md).
//
// A rule fires when NEW - BASE moves a number the bad way past its threshold AND the move is
// bigger than the noise: the paired-difference 95 % half-width when both files carry each
// replication's values (`per_replication`, same replication count: replication r ran with the
// same seed in both, so the common noise cancels), else the sum of the two files' `ci95`
// half-widths (0 with one replication: identical inputs give identical files, so any change
// is real). Identical documents never fire.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/input_error.h"

namespace knobsim {

// One regression rule, written `metric:threshold`, e.g. `p99:+10%`, `errors:+0`, `busy:-5pp`,
// `slo_met:any`. The sign says which direction is bad: `+` an increase, `-` a decrease.
struct DiffRule {
  enum class Scale { kPercent, kPoints, kAbsolute, kAny };
  std::string metric;    // p50 p90 p99 p999 mean errors error_ratio busy pending fake_ready slo_met
  double threshold = 0;  // >= 0: % of the base, percentage points, or the metric's own unit
  Scale scale = Scale::kAbsolute;
  int bad_direction = +1;  // +1: increases are regressions, -1: decreases
  std::string text;        // as written, for the report
};

// The rules when --fail-on is not given (docs/diff.md says why each).
inline constexpr std::string_view kDefaultDiffRules =
    "p99:+10%,errors:+0,pending:+0,fake_ready:+0,slo_met:any";

// The rule a variant of BASE that NEW lacks breaks: the gate did not check it, so it does not pass
// it (compare only the variants both have with --variant).
inline constexpr std::string_view kMissingVariantRule = "variant missing from NEW";

// Parses a comma-separated rule list; the error is only a message (the caller names the option):
// it names the bad rule and lists the metrics.
Expected<std::vector<DiffRule>> ParseDiffRules(std::string_view text);

// One compared number.
struct DiffRow {
  std::string variant;
  std::string subject;         // workload namespace/name, card node/index, or "cluster"
  std::string metric;          // as in DiffRule, plus "placement"/"state" for pods
  std::optional<double> base;  // nullopt: absent or null in that file
  std::optional<double> next;
  double noise = 0;     // the half-width the change must exceed
  bool paired = false;  // noise from per-replication pairs
  std::string rule;     // the rule that fired; empty when none
  std::string note;     // pods: "gpu-0[1] -> gpu-2[0]", "Running -> Pending: <why>"
  bool regression() const { return !rule.empty(); }
};

struct DiffReport {
  std::string base_scenario, next_scenario;
  std::vector<std::string> variants;  // compared, in the base's order
  std::vector<DiffRow> rows;          // every compared number that changed, plus pod changes
  int regressions = 0;
  bool identical = false;  // nothing changed at all
};

struct DiffOptions {
  std::vector<DiffRule> rules;
  bool allow_scenario_change = false;
  std::vector<std::string> variants;  // empty: every variant in both files
};

// Ok, or why the two documents cannot be compared (exit 2; a failure that is only a message):
// not results documents, a different schema major version, different scenarios without
// allow_scenario_change, a named variant missing from one of them.
Status CheckComparable(const nlohmann::ordered_json& base, const nlohmann::ordered_json& next,
                       const DiffOptions& options);

// Compares two comparable documents (CheckComparable first).
DiffReport DiffResults(const nlohmann::ordered_json& base, const nlohmann::ordered_json& next,
                       const DiffOptions& options);

// The report for people (`text`), for a pull-request comment (`markdown`: the verdict first,
// then the table) and for machines (`json`, schema knobsim.diff/v1).
std::string DiffText(const DiffReport& report);
std::string DiffMarkdown(const DiffReport& report);
nlohmann::ordered_json DiffJson(const DiffReport& report);

}  // namespace knobsim
