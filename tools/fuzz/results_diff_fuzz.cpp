// libFuzzer harness for the results documents `knobsim diff` and `knobsim report` read back:
// ParseJsonDocument and CheckResultsDocument (the one JSON reading rule, sim/io/json_document.h
// and results_document.h), then CheckComparable and DiffResults (sim/diff/results_diff.h) with
// the default rules and every report format, as `knobsim diff` runs them.
//
// The input is BASE, or BASE NUL NEW. With one document it is diffed against itself, and
// results_diff.h promises that identical documents never fire: a regression or a changed row
// there is a finding.
#include "sim/diff/results_diff.h"
#include "sim/io/json_document.h"
#include "sim/io/results_document.h"
#include "tools/fuzz/fuzz_input.h"

namespace {

// The document checked as diff checks it, or nullopt.
std::optional<knobsim::JsonDocument> Read(std::string text, const std::string& file) {
  auto doc = knobsim::ParseJsonDocument(std::move(text), file);
  if (!doc.ok()) {
    (void)doc.error().ToString();
    return std::nullopt;
  }
  if (knobsim::Status bad = knobsim::CheckResultsDocument(*doc); !bad) {
    (void)bad.ToString();
    return std::nullopt;
  }
  return std::move(*doc);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<std::string> parts =
      knobsim::fuzz::Documents(knobsim::fuzz::Text(data, size), 2);
  const bool self = parts.size() == 1;
  const auto base = Read(parts[0], "base.json");
  if (!base) return 0;
  const auto next = self ? base : Read(parts[1], "new.json");
  if (!next) return 0;

  auto rules = knobsim::ParseDiffRules(knobsim::kDefaultDiffRules);
  if (!rules) knobsim::fuzz::Broken("default rules: " + rules.error().message);
  const knobsim::DiffOptions options{*rules, false, {}};
  if (knobsim::Status why = knobsim::CheckComparable(base->root, next->root, options); !why) {
    if (self) knobsim::fuzz::Broken("a document is not comparable with itself: " + why.ToString());
    return 0;
  }
  const knobsim::DiffReport report = knobsim::DiffResults(base->root, next->root, options);
  (void)knobsim::DiffText(report);
  (void)knobsim::DiffMarkdown(report);
  (void)knobsim::DiffJson(report).dump(2);
  if (self && (report.regressions > 0 || !report.identical))
    knobsim::fuzz::Broken("a document differs from itself");
  return 0;
}
