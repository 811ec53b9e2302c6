#include "sim/io/results_document.h"

#include <map>
#include <string>

#include "sim/io/json_fields.h"
#include "sim/io/result_fields.h"
#include "sim/io/results_json.h"
#include "sim/text.h"

namespace knobsim {

namespace {

constexpr int kMostReplications = 1'000'000;

// Refuses the second of two items with the same identity ("given twice (also <path>)").
class UniqueIds {
 public:
  void Add(const JsonField& item, const std::string& id) {
    const auto [it, added] = seen_.emplace(id, item.path());
    if (!added) item.Fail(Quote(id) + " is given twice (also " + it->second + ")");
  }

 private:
  std::map<std::string, std::string> seen_;
};

// ci95: the half-widths, shaped as the values they belong to.
void CheckHalfWidths(const JsonField& f) {
  if (f.json().is_object()) {
    for (const auto& [key, member] : f.Members()) CheckHalfWidths(member);
    return;
  }
  FieldChecker::NonNegative(f);
}

// per_replication: arrays of one value per replication (null: no requests completed).
void CheckPerReplication(const JsonField& f, size_t replications) {
  for (const auto& [key, values] : f.Members()) {
    const std::vector<JsonField> items = values.Items();
    if (items.size() != replications) {
      values.Fail("holds " + std::to_string(items.size()) + " values for " +
                  std::to_string(replications) + " replications");
    }
    for (const JsonField& v : items) v.NumberOrNull();
  }
}

void CheckSummaryExtras(const JsonField& item, size_t replications) {
  if (auto ci = item.Find("ci95")) {
    ci->Object();
    CheckHalfWidths(*ci);
  }
  if (auto per = item.Find("per_replication")) CheckPerReplication(*per, replications);
}

void CheckVariant(const JsonField& v, size_t replications) {
  const bool replicated = replications > 1;
  v.At("name").String();
  UniqueIds workloads, cards, pods;
  for (const JsonField& w : v.At("workloads").Items()) {
    CheckFields<WorkloadStats>(w, replicated);
    CheckSummaryExtras(w, replications);
    workloads.Add(w, w.At("namespace").String() + "/" + w.At("name").String());
  }
  for (const JsonField& c : v.At("cards").Items()) {
    CheckFields<CardStats>(c, replicated);
    CheckSummaryExtras(c, replications);
    cards.Add(c, c.At("node").String() + "/" + std::to_string(c.At("index").Integer()));
  }
  for (const JsonField& p : v.At("pods").Items()) {
    CheckFields<PodResult>(p, replicated);
    pods.Add(p, p.At("namespace").String() + "/" + p.At("name").String());
  }
  CheckFields<ClusterResult>(v.At("cluster"), replicated);
  if (auto f = v.Find("fragmentation")) CheckFields<FragmentationResult>(*f, replicated);
  if (auto pools = v.Find("node_pools")) {
    UniqueIds names;
    for (const JsonField& p : pools->Items()) {
      CheckFields<PoolResult>(p, replicated);
      names.Add(p, p.At("name").String());
    }
  }
  if (auto t = v.Find("timeline")) t->Object();
}

}  // namespace

Status CheckResultsDocument(const JsonDocument& doc) {
  return CheckJson(doc, [](const JsonField& root) {
    root.Object();
    const JsonField schema = root.At("schema");
    if (schema.String() != kResultsSchema) {
      const std::string prefix = "knobsim.results/v";
      schema.Fail(schema.Shown() + " is not " + std::string(kResultsSchema),
                  schema.String().starts_with(prefix)
                      ? "another schema major version: rerun with this knobsim"
                      : "knobsim run/whatif/upgrade --json writes results documents");
    }
    root.At("scenario").String();
    root.At("seed").Unsigned();
    const auto replications =
        static_cast<size_t>(root.At("replications").Integer(1, kMostReplications));
    for (const char* key : {"duration_s", "warmup_s"}) {
      if (auto f = root.Find(key)) FieldChecker::NonNegative(*f);
    }
    const JsonField variants = root.At("variants");
    const std::vector<JsonField> items = variants.Items();
    if (items.empty())
      variants.Fail("is empty: a results document holds the base variant at least");
    UniqueIds names;
    for (const JsonField& v : items) {
      CheckVariant(v, replications);
      names.Add(v, v.At("name").String());
    }
  });
}

}  // namespace knobsim
