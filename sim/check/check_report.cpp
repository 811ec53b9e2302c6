#include "sim/check/check_report.h"

#include <cctype>

#include <nlohmann/json.hpp>

namespace knobsim {

std::string CheckReportText(const CheckReport& report, const std::string& source) {
  std::string out = "knobsim check: " + source + " (" + report.origin + ")\n";
  out += std::to_string(report.Count(Severity::kCritical)) + " critical, " +
         std::to_string(report.Count(Severity::kWarning)) + " warning, " +
         std::to_string(report.Count(Severity::kInfo)) + " info\n";
  for (Severity s : {Severity::kCritical, Severity::kWarning, Severity::kInfo}) {
    if (report.Count(s) == 0) continue;
    std::string title = SeverityName(s);
    for (char& c : title) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    out += "\n" + title + "\n";
    for (const Finding& f : report.findings) {
      if (f.severity != s) continue;
      out += "  [" + f.id + "]";
      for (size_t i = 0; i < f.objects.size(); ++i)
        out += (i ? ", " : " ") + f.objects[i].ToString();
      out += "\n    " + f.message + "\n";
      if (!f.consequence.empty())
        out += "    consequence (" + f.consequence_kind + "): " + f.consequence + "\n";
    }
  }
  out += "\nconsequences: " + report.consequence_note + "\n";
  return out;
}

std::string CheckReportJson(const CheckReport& report, const std::string& source,
                            std::string_view knobsim_version) {
  using Json = nlohmann::ordered_json;
  Json doc;
  doc["schema"] = std::string(kCheckSchema);
  doc["knobsim_version"] = std::string(knobsim_version);
  doc["source"] = source;
  doc["origin"] = report.origin;
  doc["summary"] = Json{{"critical", report.Count(Severity::kCritical)},
                        {"warning", report.Count(Severity::kWarning)},
                        {"info", report.Count(Severity::kInfo)}};
  doc["consequence_note"] = report.consequence_note;
  Json findings = Json::array();
  for (const Finding& f : report.findings) {
    Json j;
    j["id"] = f.id;
    j["severity"] = SeverityName(f.severity);
    Json objects = Json::array();
    for (const ObjectRef& o : f.objects) {
      Json r;
      r["kind"] = o.kind;
      if (!o.ns.empty()) r["namespace"] = o.ns;
      r["name"] = o.name;
      objects.push_back(std::move(r));
    }
    j["objects"] = std::move(objects);
    j["message"] = f.message;
    j["consequence"] = f.consequence.empty() ? Json(nullptr) : Json(f.consequence);
    j["consequence_kind"] = f.consequence_kind.empty() ? Json(nullptr) : Json(f.consequence_kind);
    j["skipped"] = f.skipped.empty() ? Json(nullptr) : Json(f.skipped);
    findings.push_back(std::move(j));
  }
  doc["findings"] = std::move(findings);
  doc["warnings"] = report.warnings;
  return doc.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace knobsim
