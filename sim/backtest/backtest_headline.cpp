#include "sim/backtest/backtest_headline.h"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "sim/backtest/backtest_json.h"
#include "sim/io/evidence_fingerprint.h"
#include "sim/io/json_document.h"
#include "sim/io/results_json.h"
#include "sim/text.h"

namespace knobsim::backtest {
namespace {

using Json = nlohmann::ordered_json;

constexpr std::string_view kHeadlineSchema = "knobsim.backtest-headline/v1";

std::string RecordPath(const std::string& store_dir, const std::string& evidence) {
  return (std::filesystem::path(store_dir) / "backtests" / (evidence + ".json")).string();
}

std::string Minutes(double s) {
  return fmt::format("{:g}m", s / 60);
}

}  // namespace

BacktestHeadline HeadlineOf(const BacktestReport& r, std::string knobsim_version) {
  BacktestHeadline h;
  h.evidence = r.evidence;
  h.knobsim_version = std::move(knobsim_version);
  h.train_from = Rfc3339(r.train.from);
  h.train_to = Rfc3339(r.train.to);
  h.test_from = Rfc3339(r.test.from);
  h.test_to = Rfc3339(r.test.to);
  h.window_s = r.window_s;
  h.windows = r.windows;
  h.replications = r.replications;
  h.verdicts = r.verdicts;
  return h;
}

Expected<BacktestHeadline> HeadlineFromJson(const JsonDocument& doc) {
  return ReadJson<BacktestHeadline>(doc, [](const JsonField& root) {
    BacktestHeadline h;
    const JsonField schema = root.At("schema");
    if (schema.String() != kBacktestSchema && schema.String() != kHeadlineSchema)
      schema.Fail(schema.Shown() + " is neither " + std::string(kBacktestSchema) + " nor " +
                      std::string(kHeadlineSchema),
                  "give the document `knobsim backtest --json` wrote");
    const JsonField evidence = root.At("evidence");
    h.evidence = evidence.String();
    if (!IsEvidenceFingerprint(h.evidence))
      evidence.Fail(evidence.Shown() + " is not an evidence fingerprint");
    h.knobsim_version = root.At("knobsim_version").String();
    h.train_from = root.At("train").At("from").String();
    h.train_to = root.At("train").At("to").String();
    h.test_from = root.At("test").At("from").String();
    h.test_to = root.At("test").At("to").String();
    h.window_s = root.At("window_s").Number();
    h.windows = static_cast<int>(root.At("windows").Integer(0, 1'000'000'000));
    h.replications = static_cast<int>(root.At("replications").Integer(0, 1'000'000'000));
    for (const JsonField& v : root.At("verdicts").Items())
      h.verdicts.push_back({v.At("what").String(), v.At("trust").Bool(), v.At("why").String()});
    return h;
  });
}

std::string HeadlineText(const BacktestHeadline& h) {
  std::string out = fmt::format(
      "Backtest of this export (knobsim backtest, docs/backtest.md): trained on {} .. {}, "
      "tested on {} .. {}, {} windows of {}, {} replication{}\n",
      h.train_from, h.train_to, h.test_from, h.test_to, h.windows, Minutes(h.window_s),
      h.replications, h.replications == 1 ? "" : "s");
  for (const Verdict& v : h.verdicts)
    out += fmt::format("  {} {}: {}\n", v.trust ? "trust" : "do not trust", v.what, v.why);
  return out;
}

std::string HeadlineStoreDir() {
  const auto env = [](const char* name) -> std::string {
    const char* v = std::getenv(name);
    return v && *v ? v : "";
  };
  if (std::string dir = env("KNOBSIM_CACHE_DIR"); !dir.empty()) return dir;
  if (std::string dir = env("XDG_CACHE_HOME"); !dir.empty()) return dir + "/knobsim";
  if (std::string dir = env("HOME"); !dir.empty()) return dir + "/.cache/knobsim";
  return "";
}

Status StoreHeadline(const std::string& store_dir, const BacktestHeadline& h) {
  if (!IsEvidenceFingerprint(h.evidence))
    return Status::Failure("the backtest has no evidence fingerprint to store it by");
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(store_dir) / "backtests", ec);
  if (ec)
    return InputError{store_dir, 0, "", "cannot make the backtest store: " + ec.message(),
                      "KNOBSIM_CACHE_DIR names another folder"};
  Json j;
  j["schema"] = kHeadlineSchema;
  j["evidence"] = h.evidence;
  j["knobsim_version"] = h.knobsim_version;
  j["train"] = Json{{"from", h.train_from}, {"to", h.train_to}};
  j["test"] = Json{{"from", h.test_from}, {"to", h.test_to}};
  j["window_s"] = h.window_s;
  j["windows"] = h.windows;
  j["replications"] = h.replications;
  Json verdicts = Json::array();
  for (const Verdict& v : h.verdicts)
    verdicts.push_back(Json{{"what", v.what}, {"trust", v.trust}, {"why", v.why}});
  j["verdicts"] = std::move(verdicts);
  return WriteFileAtomically(RecordPath(store_dir, h.evidence), ResultsJsonText(j));
}

Expected<std::optional<BacktestHeadline>> FindHeadline(const std::string& store_dir,
                                                       const std::string& evidence) {
  if (store_dir.empty() || !IsEvidenceFingerprint(evidence))
    return std::optional<BacktestHeadline>{};
  const std::string path = RecordPath(store_dir, evidence);
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::optional<BacktestHeadline>{};
  Expected<JsonDocument> doc = ReadJsonDocument(path);
  if (!doc) return doc.error();
  Expected<BacktestHeadline> h = HeadlineFromJson(*doc);
  if (!h) return h.error();
  if (h->evidence != evidence)
    return InputError{path, 0, "evidence", "holds the backtest of " + h->evidence, ""};
  return std::optional<BacktestHeadline>(std::move(*h));
}

}  // namespace knobsim::backtest
