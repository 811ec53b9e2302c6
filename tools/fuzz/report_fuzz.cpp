// libFuzzer harness for `knobsim report` (sim/report/html_report.h): a document read by the JSON
// reading rule, results and plan documents checked as the command checks them
// (CheckResultsDocument, CheckPlanDocument), then rendered. The page reads the sections those
// checks leave alone (timeline, verdict, upgrade, backtest) tolerantly: whatever they hold, the
// page is rendered or refused with a message.
#include "sim/io/json_document.h"
#include "sim/io/results_document.h"
#include "sim/io/results_json.h"
#include "sim/plan/plan_json.h"
#include "sim/report/html_report.h"
#include "tools/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto doc = knobsim::ParseJsonDocument(knobsim::fuzz::Text(data, size), "doc.json");
  if (!doc.ok()) {
    (void)doc.error().ToString();
    return 0;
  }
  const nlohmann::ordered_json& root = doc->root;
  const auto schema = root.is_object() ? root.find("schema") : root.end();
  if (root.is_object() && schema != root.end()) {
    knobsim::Status checked = knobsim::Status::Ok();
    if (*schema == knobsim::kResultsSchema) checked = knobsim::CheckResultsDocument(*doc);
    if (*schema == knobsim::kPlanSchema) checked = knobsim::CheckPlanDocument(*doc);
    if (!checked) return 0;
  }
  const knobsim::Expected<std::string> html = knobsim::RenderReport(root);
  if (html ? html->empty() : html.error().message.empty())
    knobsim::fuzz::Broken("no page and no reason");
  return 0;
}
