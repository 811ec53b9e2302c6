#include "sim/io/kube/ack_allocation.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "sim/io/kube/kube_text.h"
#include "sim/io/kube/resources.h"

namespace knobsim::kube {
namespace {

// Allocation annotations: v2 (scheduler framework), v3, v1 (extender).
constexpr std::string_view kAllocationV2 = "scheduler.framework.gpushare.allocation";
constexpr std::string_view kCoreAllocationV2 = "gpushare.alibabacloud.com/core-percentage";
constexpr std::string_view kAllocationV3 = "gpushare.alibabacloud.com/gpumemory";
constexpr std::string_view kCardIndexV1 = "ALIYUN_COM_GPU_MEM_IDX";
constexpr std::string_view kPodUnitsV1 = "ALIYUN_COM_GPU_MEM_POD";

using AllocationMap = std::map<int, int>;

// {"<container>": {"<card>": units}} with units as a number, an "<allocated>/<total>" string or
// a list of device ids (the "countable" form; units = its length). Card -> units over
// containers. The value is parsed but never quoted back whole: it is ours to read, not to echo.
AllocationMap ReadAllocationJson(FieldReader& r, const Field& f, const std::string& text) {
  const char* kShape = "expected JSON such as {\"0\":{\"1\":4}}: container -> card -> units";
  const nlohmann::json json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) r.Fail(f, "is not valid JSON", kShape);
  if (!json.is_object()) r.Fail(f, "is not an ACK allocation", kShape);
  AllocationMap cards;
  for (const auto& [container, per_card] : json.items()) {
    if (!per_card.is_object()) {
      r.Fail(f, Cat({"container ", Quote(container), " has no card map"}), kShape);
    }
    for (const auto& [card_text, units_json] : per_card.items()) {
      const std::optional<int64_t> card = ParseInteger(card_text);
      if (!card || *card < 0 || *card >= kMaxCardsPerNode) {
        r.Fail(f, Cat({"card ", Quote(card_text), " is not a card index"}), kShape);
      }
      std::optional<int64_t> units;
      if (units_json.is_number_integer() || units_json.is_number_unsigned()) {
        units = units_json.get<int64_t>();
      } else if (units_json.is_string()) {
        const std::string s = units_json.get<std::string>();
        units = ParseInteger(s.substr(0, s.find('/')));
      } else if (units_json.is_array()) {
        units = static_cast<int64_t>(units_json.size());
      }
      if (!units || *units < 0 || *units > kMaxGpuUnits) {
        r.Fail(f,
               Cat({"card ", card_text, " of container ", Quote(container),
                    " has no whole number of units"}),
               kShape);
      }
      cards[static_cast<int>(*card)] += static_cast<int>(*units);
    }
  }
  return cards;
}

}  // namespace

void ReadAllocation(FieldReader& r, const Field& annotations, PodSpec& pod) {
  // ACK's cache rebuild reads the framework's annotations first (v2, then the v3 name, which
  // we assume carries the same JSON: ACKP declares it parser-compatible), then the extender's
  // (v1). An empty v2/v3 allocation falls through to v1.
  for (std::string_view key : {kAllocationV2, kAllocationV3}) {
    if (auto f = r.Get(annotations, key)) {
      pod.allocated_mem = ReadAllocationJson(r, *f, r.String(*f, false));
      if (!pod.allocated_mem.empty()) break;
    }
  }
  if (auto f = r.Get(annotations, kCoreAllocationV2)) {
    pod.allocated_core = ReadAllocationJson(r, *f, r.String(*f, false));
  }
  if (!pod.allocated_mem.empty() || !pod.allocated_core.empty()) return;
  if (auto idx = r.Get(annotations, kCardIndexV1)) {
    const std::string text = r.String(*idx);
    const std::optional<int64_t> card = ParseInteger(text);
    if (!card || *card < 0 || *card >= kMaxCardsPerNode) {
      r.Fail(*idx, Quote(text) + " is not a card index", "the extender writes one card index");
    }
    // Without ALIYUN_COM_GPU_MEM_POD the pod's own request is what the extender would write.
    int64_t units = pod.gpu_mem;
    if (auto pod_units = r.Get(annotations, kPodUnitsV1))
      units = r.Int(*pod_units, 0, kMaxGpuUnits);
    pod.allocated_mem[static_cast<int>(*card)] = static_cast<int>(units);
  }
}

}  // namespace knobsim::kube
