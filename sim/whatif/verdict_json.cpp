#include "sim/whatif/verdict_json.h"

#include <utility>

#include <nlohmann/json.hpp>

namespace knobsim {

nlohmann::ordered_json VerdictToJson(const VerdictLines& verdict) {
  using Json = nlohmann::ordered_json;
  Json j;
  j["headline"] = verdict.headline;
  j["clean"] = verdict.clean;
  Json lines = Json::array();
  for (const VerdictLine& line : verdict.lines) {
    Json l;
    l["kind"] = line.kind;
    l["text"] = line.text;
    l["new"] = line.is_new;
    lines.push_back(std::move(l));
  }
  j["lines"] = std::move(lines);
  return j;
}

void AddVerdicts(const RunSetResult& results, nlohmann::ordered_json* document) {
  nlohmann::ordered_json& variants = document->at("variants");
  for (size_t i = 0; i < results.variants.size() && i < variants.size(); ++i) {
    const VariantSummary& v = results.variants[i];
    variants[i]["verdict"] = VerdictToJson(LinesOf(JudgeVariant(results.variants.front(), v)));
  }
}

}  // namespace knobsim
