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

// One field of a record, read with its type checked; the failure names the field.
class RecordReader {
 public:
  RecordReader(const Json& doc, const std::string& file) : doc_(doc), file_(file) {}

  const Json* Get(const Json& in, const std::string& key, const std::string& path) {
    if (!in.is_object() || !in.contains(key)) {
      Fail(path.empty() ? key : path + "." + key, "missing");
      return nullptr;
    }
    return &in.at(key);
  }
  std::string String(const Json& in, const std::string& key, const std::string& path = "") {
    const Json* v = Get(in, key, path);
    if (v && !v->is_string()) Fail(Path(path, key), "not a string");
    return v && v->is_string() ? v->get<std::string>() : "";
  }
  double Number(const Json& in, const std::string& key, const std::string& path = "") {
    const Json* v = Get(in, key, path);
    if (v && !v->is_number()) Fail(Path(path, key), "not a number");
    return v && v->is_number() ? v->get<double>() : 0;
  }
  int Count(const Json& in, const std::string& key, const std::string& path = "") {
    const Json* v = Get(in, key, path);
    if (v && !(v->is_number_integer() && v->get<int64_t>() >= 0 &&
               v->get<int64_t>() <= std::numeric_limits<int>::max()))
      Fail(Path(path, key), "not a count");
    return v && v->is_number_integer() ? static_cast<int>(v->get<int64_t>()) : 0;
  }
  bool Bool(const Json& in, const std::string& key, const std::string& path) {
    const Json* v = Get(in, key, path);
    if (v && !v->is_boolean()) Fail(Path(path, key), "not true or false");
    return v && v->is_boolean() && v->get<bool>();
  }
  void Fail(const std::string& field, const std::string& message) {
    if (!error_) error_ = InputError{file_, 0, field, message, ""};
  }
  const std::optional<InputError>& error() const { return error_; }
  const Json& doc() const { return doc_; }

 private:
  static std::string Path(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
  }
  const Json& doc_;
  std::string file_;
  std::optional<InputError> error_;
};

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

Expected<BacktestHeadline> HeadlineFromJson(const Json& doc, const std::string& file) {
  RecordReader in(doc, file);
  BacktestHeadline h;
  if (!doc.is_object()) return InputError{file, 0, "", "not a JSON object", ""};
  const std::string schema = in.String(doc, "schema");
  if (in.error()) return *in.error();
  if (schema != kBacktestSchema && schema != kHeadlineSchema)
    return InputError{file, 0, "schema",
                      "\"" + schema + "\" is neither " + std::string(kBacktestSchema) + " nor " +
                          std::string(kHeadlineSchema),
                      "give the document `knobsim backtest --json` wrote"};
  h.evidence = in.String(doc, "evidence");
  if (!in.error() && !IsEvidenceFingerprint(h.evidence))
    in.Fail("evidence", "\"" + h.evidence + "\" is not an evidence fingerprint");
  h.knobsim_version = in.String(doc, "knobsim_version");
  if (const Json* train = in.Get(doc, "train", "")) {
    h.train_from = in.String(*train, "from", "train");
    h.train_to = in.String(*train, "to", "train");
  }
  if (const Json* test = in.Get(doc, "test", "")) {
    h.test_from = in.String(*test, "from", "test");
    h.test_to = in.String(*test, "to", "test");
  }
  h.window_s = in.Number(doc, "window_s");
  h.windows = in.Count(doc, "windows");
  h.replications = in.Count(doc, "replications");
  if (const Json* verdicts = in.Get(doc, "verdicts", "")) {
    if (!verdicts->is_array()) in.Fail("verdicts", "not a list");
    for (size_t i = 0; verdicts->is_array() && i < verdicts->size(); ++i) {
      const std::string path = "verdicts[" + std::to_string(i) + "]";
      const Json& v = verdicts->at(i);
      h.verdicts.push_back(
          {in.String(v, "what", path), in.Bool(v, "trust", path), in.String(v, "why", path)});
    }
  }
  if (in.error()) return *in.error();
  return h;
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
  if (auto failed = WriteFileAtomically(RecordPath(store_dir, h.evidence), ResultsJsonText(j)))
    return *failed;
  return Status::Ok();
}

Expected<std::optional<BacktestHeadline>> FindHeadline(const std::string& store_dir,
                                                       const std::string& evidence) {
  if (store_dir.empty() || !IsEvidenceFingerprint(evidence))
    return std::optional<BacktestHeadline>{};
  const std::string path = RecordPath(store_dir, evidence);
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::optional<BacktestHeadline>{};
  Expected<Json> doc = ReadJsonDocument(path);
  if (!doc) return doc.error();
  Expected<BacktestHeadline> h = HeadlineFromJson(*doc, path);
  if (!h) return h.error();
  if (h->evidence != evidence)
    return InputError{path, 0, "evidence", "holds the backtest of " + h->evidence, ""};
  return std::optional<BacktestHeadline>(std::move(*h));
}

}  // namespace knobsim::backtest
