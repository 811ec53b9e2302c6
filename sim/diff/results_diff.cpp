#include "sim/diff/results_diff.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "sim/replication_stats.h"
#include "sim/text.h"

namespace knobsim {
namespace {

using Json = nlohmann::ordered_json;

constexpr std::string_view kResultsSchemaPrefix = "knobsim.results/v";

// What each metric may be measured in, and where it lives in a results document.
struct MetricInfo {
  std::string_view name;
  std::string_view scales;  // the scale letters allowed: % p(oints) a(bsolute) y (any)
  std::string_view unit;    // for the report
};

constexpr MetricInfo kMetrics[] = {
    {"p50", "%a", "ms"},         {"p90", "%a", "ms"},  {"p99", "%a", "ms"},
    {"p999", "%a", "ms"},        {"mean", "%a", "ms"}, {"errors", "%a", ""},
    {"error_ratio", "pa", ""},   {"busy", "pa", ""},   {"pending", "a", "pods"},
    {"fake_ready", "a", "pods"}, {"slo_met", "y", ""},
};

const MetricInfo* FindMetric(std::string_view name) {
  for (const MetricInfo& m : kMetrics)
    if (m.name == name) return &m;
  return nullptr;
}

std::string MetricList() {
  std::string out;
  for (const MetricInfo& m : kMetrics) out += (out.empty() ? "" : ", ") + std::string(m.name);
  return out;
}

std::string Format(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

// Safe reading of a document that may not be what knobsim writes (the command checks it first,
// sim/io/results_document.h; this library never indexes past what is there): a member that is
// absent, or of another type, reads as absent.
const Json& Member(const Json& j, std::string_view key) {
  static const Json kAbsent;
  if (!j.is_object()) return kAbsent;
  const auto it = j.find(key);
  return it == j.end() ? kAbsent : *it;
}

const Json& ArrayOf(const Json& j, std::string_view key) {
  static const Json kEmpty = Json::array();
  const Json& a = Member(j, key);
  return a.is_array() ? a : kEmpty;
}

std::string TextOf(const Json& j, std::string_view key, const std::string& otherwise = "") {
  const Json& t = Member(j, key);
  return t.is_string() ? t.get<std::string>() : otherwise;
}

std::optional<double> NumberAt(const Json& j, std::initializer_list<const char*> path) {
  const Json* at = &j;
  for (const char* key : path) at = &Member(*at, key);
  if (at->is_boolean()) return at->get<bool>() ? 1.0 : 0.0;
  if (!at->is_number()) return std::nullopt;
  return at->get<double>();
}

std::optional<double> ErrorsOf(const Json& errors) {
  if (!errors.is_object()) return std::nullopt;
  double total = 0;
  for (const auto& [cause, value] : errors.items()) {
    if (value.is_number()) total += value.get<double>();
  }
  return total;
}

// The paired-difference half-width over replications present in both, or nullopt when the
// files do not carry comparable per-replication values.
std::optional<double> PairedNoise(const Json& base, const Json& next, const char* key,
                                  bool same_seeds) {
  if (!same_seeds) return std::nullopt;
  const Json& va = Member(Member(base, "per_replication"), key);
  const Json& vb = Member(Member(next, "per_replication"), key);
  if (!va.is_array() || !vb.is_array() || va.size() != vb.size()) return std::nullopt;
  std::vector<double> d;
  for (size_t r = 0; r < va.size(); ++r) {
    if (va[r].is_number() && vb[r].is_number())
      d.push_back(vb[r].get<double>() - va[r].get<double>());
  }
  if (d.size() < 2) return std::nullopt;
  return Summarize(d).half_width;
}

double CiOf(const Json& j, std::initializer_list<const char*> path) {
  const Json* at = &Member(j, "ci95");
  for (const char* key : path) at = &Member(*at, key);
  return at->is_number() ? at->get<double>() : 0;
}

std::string CardId(const Json& card) {
  const Json& index = Member(card, "index");
  return TextOf(card, "node") + "/" + (index.is_number_integer() ? index.dump() : "?");
}

std::string WorkloadId(const Json& w) {
  if (Member(w, "id").is_string()) return TextOf(w, "id");
  return TextOf(w, "namespace", "default") + "/" + TextOf(w, "name");
}

std::string PodId(const Json& p) {
  return TextOf(p, "namespace", "default") + "/" + TextOf(p, "name");
}

bool Placed(const Json& p) {
  return Member(p, "node").is_string();
}

std::string Placement(const Json& p) {
  if (!Placed(p)) return "(not placed)";
  std::string out = TextOf(p, "node");
  const Json& cards = ArrayOf(p, "cards");
  if (!cards.empty()) {
    out += "[";
    for (size_t i = 0; i < cards.size(); ++i) out += (i ? "," : "") + cards[i].dump();
    out += "]";
  }
  return out;
}

const Json* FindVariant(const Json& doc, const std::string& name) {
  for (const Json& v : ArrayOf(doc, "variants"))
    if (TextOf(v, "name") == name) return &v;
  return nullptr;
}

bool Exceeds(const DiffRule& rule, double base, double next) {
  const double bad = (next - base) * rule.bad_direction;
  switch (rule.scale) {
    case DiffRule::Scale::kAny:
      return base == 1 && next == 0;
    case DiffRule::Scale::kPercent:
      if (base == 0) return bad > 0;
      return bad / std::fabs(base) * 100 > rule.threshold;
    case DiffRule::Scale::kPoints:
      return bad * 100 > rule.threshold;
    case DiffRule::Scale::kAbsolute:
      return bad > rule.threshold;
  }
  return false;
}

class Differ {
 public:
  Differ(const DiffOptions& options, bool same_seeds)
      : options_(options), same_seeds_(same_seeds) {}

  void Number(DiffReport& report, const std::string& variant, const std::string& subject,
              const std::string& metric, std::optional<double> base, std::optional<double> next,
              std::optional<double> paired, double unpaired) {
    if (base == next) return;
    DiffRow row{
        variant, subject, metric, base, next, paired ? *paired : unpaired, paired.has_value(),
        "",      ""};
    if (base && next) {
      for (const DiffRule& rule : options_.rules) {
        if (rule.metric != metric || !Exceeds(rule, *base, *next)) continue;
        // slo_met is already a verdict over every replication: no noise to subtract.
        if (rule.scale != DiffRule::Scale::kAny && !(std::fabs(*next - *base) > row.noise))
          continue;
        row.rule = rule.text;
        ++report.regressions;
        break;
      }
    }
    report.rows.push_back(std::move(row));
  }

  // An informational row: something one file has and the other lacks.
  static void Note(DiffReport& report, const std::string& variant, const std::string& subject,
                   const std::string& what, std::string note) {
    report.rows.push_back(
        {variant, subject, what, std::nullopt, std::nullopt, 0, false, "", std::move(note)});
  }

  static std::string CardList(const std::string& where, const std::vector<std::string>& ids) {
    constexpr size_t kShown = 8;
    std::string out =
        std::to_string(ids.size()) + (ids.size() == 1 ? " card " : " cards ") + where + ": ";
    for (size_t i = 0; i < ids.size() && i < kShown; ++i) out += (i ? ", " : "") + ids[i];
    if (ids.size() > kShown) out += ", …";
    return out;
  }

  void Workloads(DiffReport& report, const std::string& variant, const Json& base,
                 const Json& next) {
    std::map<std::string, const Json*> in_base;
    for (const Json& w : ArrayOf(base, "workloads")) in_base[WorkloadId(w)] = &w;
    std::set<std::string> in_next;
    for (const Json& w : ArrayOf(next, "workloads")) {
      const std::string id = WorkloadId(w);
      in_next.insert(id);
      auto it = in_base.find(id);
      if (it == in_base.end()) {
        Note(report, variant, id, "workload", "in NEW only: nothing to compare it with");
        continue;
      }
      const Json& b = *it->second;
      for (const char* p : {"p50", "p90", "p99", "p999", "mean"}) {
        const char* per = std::string_view(p) == "p99"    ? "p99_ms"
                          : std::string_view(p) == "mean" ? "mean_ms"
                                                          : nullptr;
        Number(report, variant, id, p, NumberAt(b, {"latency_ms", p}),
               NumberAt(w, {"latency_ms", p}),
               per ? PairedNoise(b, w, per, same_seeds_) : std::nullopt,
               CiOf(b, {"latency_ms", p}) + CiOf(w, {"latency_ms", p}));
      }
      double errors_ci = 0;
      for (const char* cause : {"oom", "fake_ready", "timeout", "no_replica", "interrupted"})
        errors_ci += CiOf(b, {"errors", cause}) + CiOf(w, {"errors", cause});
      Number(report, variant, id, "errors", ErrorsOf(Member(b, "errors")),
             ErrorsOf(Member(w, "errors")), PairedNoise(b, w, "errors", same_seeds_), errors_ci);
      Number(report, variant, id, "error_ratio", NumberAt(b, {"error_ratio"}),
             NumberAt(w, {"error_ratio"}), PairedNoise(b, w, "error_ratio", same_seeds_),
             CiOf(b, {"error_ratio"}) + CiOf(w, {"error_ratio"}));
      Number(report, variant, id, "slo_met", NumberAt(b, {"slo_met"}), NumberAt(w, {"slo_met"}),
             std::nullopt, 0);
    }
    // A workload NEW no longer has is said, not skipped: its rules were not checked.
    for (const Json& w : ArrayOf(base, "workloads")) {
      if (!in_next.contains(WorkloadId(w)))
        Note(report, variant, WorkloadId(w), "workload", "in BASE only: not compared");
    }
  }

  void Cards(DiffReport& report, const std::string& variant, const Json& base, const Json& next) {
    std::map<std::string, const Json*> in_base;
    for (const Json& c : ArrayOf(base, "cards")) in_base[CardId(c)] = &c;
    std::vector<std::string> only_next;
    for (const Json& c : ArrayOf(next, "cards")) {
      auto it = in_base.find(CardId(c));
      if (it == in_base.end()) {
        only_next.push_back(CardId(c));
        continue;
      }
      Number(report, variant, CardId(c), "busy", NumberAt(*it->second, {"busy"}),
             NumberAt(c, {"busy"}), PairedNoise(*it->second, c, "busy", same_seeds_),
             CiOf(*it->second, {"busy"}) + CiOf(c, {"busy"}));
      in_base.erase(it);
    }
    // Cards that came or went (a pool resized): one line each way, listing them.
    std::vector<std::string> only_base;
    for (const auto& [id, card] : in_base) only_base.push_back(id);
    if (!only_base.empty())
      Note(report, variant, "cluster", "cards", CardList("in BASE only", only_base));
    if (!only_next.empty())
      Note(report, variant, "cluster", "cards", CardList("in NEW only", only_next));
  }

  void Cluster(DiffReport& report, const std::string& variant, const Json& base, const Json& next) {
    Number(report, variant, "cluster", "pending", NumberAt(base, {"cluster", "pending_pods"}),
           NumberAt(next, {"cluster", "pending_pods"}), std::nullopt, 0);
    Number(report, variant, "cluster", "fake_ready", NumberAt(base, {"cluster", "fake_ready_pods"}),
           NumberAt(next, {"cluster", "fake_ready_pods"}), std::nullopt, 0);
  }

  // Pods that moved, and pods that became Pending or fake Ready (with the reason the new file
  // gives): informational rows; the pending / fake_ready rules count them at cluster level.
  static void Pods(DiffReport& report, const std::string& variant, const Json& base,
                   const Json& next) {
    std::map<std::string, const Json*> in_base;
    for (const Json& p : ArrayOf(base, "pods")) in_base[PodId(p)] = &p;
    for (const Json& p : ArrayOf(next, "pods")) {
      const std::string id = PodId(p);
      auto it = in_base.find(id);
      const std::string state = TextOf(p, "state");
      const std::string old_state = it == in_base.end() ? "(new)" : TextOf(*it->second, "state");
      if (it != in_base.end() && Placement(*it->second) != Placement(p) && Placed(p) &&
          Placed(*it->second)) {
        report.rows.push_back({variant, id, "placement", std::nullopt, std::nullopt, 0, false, "",
                               Placement(*it->second) + " -> " + Placement(p)});
      }
      if (state != old_state && (state == "Pending" || state == "FakeReady")) {
        std::string note = old_state + " -> " + state;
        const std::string message = TextOf(p, "message");
        if (!message.empty()) note += ": " + message;
        report.rows.push_back(
            {variant, id, "state", std::nullopt, std::nullopt, 0, false, "", note});
      }
    }
  }

 private:
  const DiffOptions& options_;
  bool same_seeds_;
};

// Fractions (error_ratio, busy) are shown as percentages and their changes in percentage
// points; the other metrics carry their unit (ms, requests, pods).
bool IsFraction(std::string_view metric) {
  return metric == "error_ratio" || metric == "busy";
}

std::string WithUnit(double v, std::string_view metric) {
  if (IsFraction(metric)) return Format(v * 100) + " %";
  if (metric == "errors") return Format(v) + " requests";
  const MetricInfo* m = FindMetric(metric);
  return m == nullptr || m->unit.empty() ? Format(v) : Format(v) + " " + std::string(m->unit);
}

std::string Change(const DiffRow& r) {
  if (!r.base || !r.next) return r.next ? "new" : "gone";
  const double d = *r.next - *r.base;
  const std::string sign = d >= 0 ? "+" : "";
  if (r.metric == "slo_met") return d < 0 ? "now missed" : d > 0 ? "now met" : "unchanged";
  if (IsFraction(r.metric)) return sign + Format(d * 100) + " pp";
  std::string out = sign + WithUnit(d, r.metric);
  if (*r.base != 0) out += " (" + sign + Format(d / std::fabs(*r.base) * 100) + " %)";
  return out;
}

std::string Value(const std::optional<double>& v, const std::string& metric) {
  if (!v) return "-";
  if (metric == "slo_met") return *v != 0 ? "met" : "missed";
  return WithUnit(*v, metric);
}

// The noise band in the metric's unit ("±19.06 ms", "±0.5 pp"); "" when there is none.
std::string Noise(const DiffRow& r) {
  if (!(r.noise > 0)) return "";
  return "±" + (IsFraction(r.metric) ? Format(r.noise * 100) + " pp" : WithUnit(r.noise, r.metric));
}

std::string Verdict(const DiffReport& report) {
  if (report.identical) return "no difference at all";
  if (report.regressions == 0) return "no regression";
  std::set<std::string> rules;
  for (const DiffRow& r : report.rows)
    if (r.regression()) rules.insert(r.rule);
  std::string out = std::to_string(report.regressions) + " regression" +
                    (report.regressions == 1 ? "" : "s") + " (";
  bool first = true;
  for (const std::string& rule : rules) {
    out += (first ? "" : ", ") + rule;
    first = false;
  }
  return out + ")";
}

}  // namespace

Expected<std::vector<DiffRule>> ParseDiffRules(std::string_view text) {
  std::vector<DiffRule> rules;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    std::string_view item = text.substr(start, comma - start);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    start = comma + 1;
    if (item.empty()) continue;
    auto fail = [&](const std::string& why) {
      return InputError{"", 0, "", "rule \"" + std::string(item) + "\": " + why, ""};
    };
    const size_t colon = item.find(':');
    if (colon == std::string_view::npos) return fail("write metric:threshold, e.g. p99:+10%");
    DiffRule rule;
    rule.text = std::string(item);
    rule.metric = std::string(item.substr(0, colon));
    const MetricInfo* info = FindMetric(rule.metric);
    if (info == nullptr) return fail("unknown metric; metrics: " + MetricList());
    std::string_view spec = item.substr(colon + 1);
    if (spec == "any") {
      if (info->scales.find('y') == std::string_view::npos)
        return fail("`any` is for slo_met only; give a signed threshold, e.g. +10%");
      rule.scale = DiffRule::Scale::kAny;
      rules.push_back(std::move(rule));
      continue;
    }
    if (info->scales == "y")
      return fail("slo_met takes `any` (a workload that met its SLO misses it)");
    if (spec.empty() || (spec.front() != '+' && spec.front() != '-'))
      return fail("the threshold needs a sign: + when increases are bad, - when decreases are");
    rule.bad_direction = spec.front() == '+' ? +1 : -1;
    spec.remove_prefix(1);
    char scale = 'a';
    if (spec.ends_with("%")) {
      scale = '%';
      spec.remove_suffix(1);
    } else if (spec.ends_with("pp")) {
      scale = 'p';
      spec.remove_suffix(2);
    }
    if (info->scales.find(scale) == std::string_view::npos) {
      const std::string allowed =
          info->scales == "pa" ? "percentage points (pp) or a fraction"
          : info->scales == "a"
              ? "a count"
              : "a percentage (%) or " + std::string(info->unit.empty() ? "a count" : info->unit);
      return fail(rule.metric + " thresholds are in " + allowed);
    }
    char* end = nullptr;
    const std::string number(spec);
    rule.threshold = std::strtod(number.c_str(), &end);
    if (number.empty() || end != number.c_str() + number.size() || !(rule.threshold >= 0) ||
        !std::isfinite(rule.threshold))
      return fail(Quote(number) + " is not a threshold (a number >= 0)");
    rule.scale = scale == '%'   ? DiffRule::Scale::kPercent
                 : scale == 'p' ? DiffRule::Scale::kPoints
                                : DiffRule::Scale::kAbsolute;
    rules.push_back(std::move(rule));
  }
  if (rules.empty()) return InputError{"", 0, "", "no rules given", ""};
  return rules;
}

Status CheckComparable(const Json& base, const Json& next, const DiffOptions& options) {
  auto schema_major = [](const Json& doc) -> std::optional<std::string> {
    if (!Member(doc, "schema").is_string()) return std::nullopt;
    const std::string schema = TextOf(doc, "schema");
    if (!schema.starts_with(kResultsSchemaPrefix)) return std::nullopt;
    std::string major = schema.substr(kResultsSchemaPrefix.size());
    return major.substr(0, major.find('.'));
  };
  const auto a = schema_major(base), b = schema_major(next);
  if (!a)
    return Status::Failure("BASE is not a knobsim results document (knobsim run/whatif --json)");
  if (!b)
    return Status::Failure("NEW is not a knobsim results document (knobsim run/whatif --json)");
  if (*a != *b)
    return Status::Failure("different schema major versions (knobsim.results/v" + *a + " and v" +
                           *b + "): rerun both with one knobsim");
  if (ArrayOf(base, "variants").empty())
    return Status::Failure("BASE holds no variants: a results document has the base at least");
  if (ArrayOf(next, "variants").empty())
    return Status::Failure("NEW holds no variants: a results document has the base at least");
  const std::string sa = TextOf(base, "scenario");
  const std::string sb = TextOf(next, "scenario");
  if (sa != sb && !options.allow_scenario_change)
    return Status::Failure("different scenarios (\"" + sa + "\" and \"" + sb +
                           "\"); pass --allow-scenario-change if that is meant");
  for (const std::string& v : options.variants) {
    if (!FindVariant(base, v)) return Status::Failure("variant \"" + v + "\" is not in BASE");
    if (!FindVariant(next, v)) return Status::Failure("variant \"" + v + "\" is not in NEW");
  }
  return Status::Ok();
}

DiffReport DiffResults(const Json& base, const Json& next, const DiffOptions& options) {
  DiffReport report;
  report.base_scenario = TextOf(base, "scenario");
  report.next_scenario = TextOf(next, "scenario");
  const bool same_seeds = Member(base, "seed") == Member(next, "seed") &&
                          Member(base, "replications") == Member(next, "replications");
  Differ differ(options, same_seeds);
  std::vector<std::string> names = options.variants;
  if (names.empty()) {
    std::set<std::string> seen;
    for (const Json& v : ArrayOf(base, "variants")) {
      const std::string name = TextOf(v, "name");
      if (!seen.insert(name).second) continue;
      if (FindVariant(next, name)) {
        names.push_back(name);
      } else {
        // The gate cannot vouch for a variant it did not see: a regression, not a silent skip.
        report.rows.push_back({name, name, "variant", std::nullopt, std::nullopt, 0, false,
                               std::string(kMissingVariantRule),
                               "in BASE only: none of its rules were checked"});
        ++report.regressions;
      }
    }
    for (const Json& v : ArrayOf(next, "variants")) {
      const std::string name = TextOf(v, "name");
      if (!FindVariant(base, name) && seen.insert(name).second) {
        report.rows.push_back({name, name, "variant", std::nullopt, std::nullopt, 0, false, "",
                               "in NEW only: nothing to compare it with"});
      }
    }
  }
  for (const std::string& name : names) {
    const Json* found_base = FindVariant(base, name);
    const Json* found_next = FindVariant(next, name);
    if (found_base == nullptr || found_next == nullptr) continue;  // CheckComparable refuses it
    const Json& b = *found_base;
    const Json& n = *found_next;
    report.variants.push_back(name);
    differ.Workloads(report, name, b, n);
    differ.Cards(report, name, b, n);
    differ.Cluster(report, name, b, n);
    Differ::Pods(report, name, b, n);
  }
  report.identical = report.rows.empty();
  return report;
}

std::string DiffText(const DiffReport& report) {
  std::string out = "knobsim diff: " + Verdict(report) + "\n";
  if (report.rows.empty()) return out;
  char line[512];
  std::snprintf(line, sizeof line, "\n%-10s %-34s %-12s %12s %12s %20s %10s  %s\n", "variant",
                "subject", "metric", "base", "new", "change", "noise", "verdict");
  out += line;
  for (const DiffRow& r : report.rows) {
    if (!r.note.empty()) {
      const std::string note = r.regression() ? r.note + "  REGRESSION " + r.rule : r.note;
      std::snprintf(line, sizeof line, "%-10s %-34s %-12s %s\n", r.variant.c_str(),
                    r.subject.c_str(), r.metric.c_str(), note.c_str());
    } else {
      std::snprintf(line, sizeof line, "%-10s %-34s %-12s %12s %12s %20s %10s  %s\n",
                    r.variant.c_str(), r.subject.c_str(), r.metric.c_str(),
                    Value(r.base, r.metric).c_str(), Value(r.next, r.metric).c_str(),
                    Change(r).c_str(), (r.noise > 0 ? Noise(r) : "-").c_str(),
                    r.regression() ? ("REGRESSION " + r.rule).c_str() : "");
    }
    out += line;
  }
  return out;
}

std::string DiffMarkdown(const DiffReport& report) {
  std::string out = "### knobsim: " + MarkdownText(Verdict(report)) + "\n\n";
  if (report.rows.empty()) return out + "Both results are the same, number for number.\n";
  std::string regressions, table;
  for (const DiffRow& r : report.rows) {
    // Every name came from the input (a config repository's manifests): MarkdownText, always.
    const std::string subject = MarkdownText(r.subject), variant = MarkdownText(r.variant);
    // Rules are knobsim's own words (ParseDiffRules admits no Markdown), shown as code.
    const std::string rule = "`" + r.rule + "`", note = MarkdownText(r.note);
    if (r.regression() && !r.note.empty()) {
      regressions += "- **" + subject + "** (" + variant + "): " + note + ": **" + rule + "**\n";
    } else if (r.regression()) {
      regressions += "- **" + subject + "** (" + variant + "): " + r.metric + " " +
                     Value(r.base, r.metric) + " → " + Value(r.next, r.metric) + " (" + Change(r) +
                     (r.noise > 0 ? ", noise " + Noise(r) : ", no noise") + ") breaks " + rule +
                     "\n";
    }
    table += "| " + variant + " | " + subject + " | " + r.metric + " | " +
             (r.note.empty() ? Value(r.base, r.metric) + " | " + Value(r.next, r.metric) + " | " +
                                   MarkdownText(Change(r)) + " | " + Noise(r) + " | "
                             : note + " | | | | ") +
             (r.regression() ? "**" + rule + "**" : "") + " |\n";
  }
  if (!regressions.empty()) out += regressions + "\n";
  out += "| variant | subject | metric | base | new | change | noise | rule |\n";
  out += "|---|---|---|---|---|---|---|---|\n";
  return out + table;
}

Json DiffJson(const DiffReport& report) {
  Json j;
  j["schema"] = "knobsim.diff/v1";
  j["base_scenario"] = report.base_scenario;
  j["new_scenario"] = report.next_scenario;
  j["variants"] = report.variants;
  j["identical"] = report.identical;
  j["regressions"] = report.regressions;
  j["verdict"] = Verdict(report);
  Json rows = Json::array();
  for (const DiffRow& r : report.rows) {
    Json row;
    row["variant"] = r.variant;
    row["subject"] = r.subject;
    row["metric"] = r.metric;
    row["base"] = r.base ? Json(*r.base) : Json(nullptr);
    row["new"] = r.next ? Json(*r.next) : Json(nullptr);
    row["noise"] = r.noise;
    row["paired"] = r.paired;
    row["rule"] = r.rule.empty() ? Json(nullptr) : Json(r.rule);
    if (!r.note.empty()) row["note"] = r.note;
    // The numbers as the text and markdown reports write them, units and all, so that a page
    // made of this document (knobsim report) says the same.
    row["shown"] = {{"base", Value(r.base, r.metric)},
                    {"new", Value(r.next, r.metric)},
                    {"change", Change(r)},
                    {"noise", Noise(r)}};
    rows.push_back(std::move(row));
  }
  j["rows"] = std::move(rows);
  return j;
}

}  // namespace knobsim
