// libFuzzer harness for the plan documents `knobsim merge` and `knobsim report` read back
// (sim/plan/plan_json.h): up to four documents separated by NUL bytes, each parsed by the JSON
// reading rule and CheckPlanDocument. Each checked document gets its summary recomputed
// (AddPlanSummary, which relies on the check); when every one is a shard they are merged
// (MergePlanShards), and the merged plan, written as merge writes it, must check again.
#include "sim/io/json_document.h"
#include "sim/plan/plan_json.h"
#include "tools/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<std::string> parts =
      knobsim::fuzz::Documents(knobsim::fuzz::Text(data, size), 4);
  std::vector<nlohmann::ordered_json> shards;
  bool all_shards = true;
  for (size_t k = 0; k < parts.size(); ++k) {
    auto doc = knobsim::ParseJsonDocument(parts[k], "plan" + std::to_string(k) + ".json");
    if (!doc.ok()) {
      (void)doc.error().ToString();
      return 0;
    }
    if (knobsim::Status bad = knobsim::CheckPlanDocument(*doc); !bad) {
      (void)bad.ToString();
      return 0;
    }
    nlohmann::ordered_json summarized = doc->root;
    knobsim::AddPlanSummary(&summarized);
    all_shards = all_shards && doc->root.contains("shard");
    shards.push_back(std::move(doc->root));
  }
  if (!all_shards) return 0;
  const auto merged = knobsim::MergePlanShards(shards);
  if (!merged) return 0;
  auto back = knobsim::ParseJsonDocument(knobsim::PlanJsonText(*merged), "merged.json");
  if (!back.ok()) knobsim::fuzz::Broken("merged plan does not parse: " + back.error().ToString());
  if (knobsim::Status bad = knobsim::CheckPlanDocument(*back); !bad)
    knobsim::fuzz::Broken("merged plan does not read back: " + bad.ToString());
  return 0;
}
