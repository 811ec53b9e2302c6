// The export documents (ExportJson, ExportYaml in export_generator.h): the objects as one
// kubectl `List`, in JSON with kubectl's 4-space indent, or in YAML as two List documents (the
// nodes, then everything else) in kubectl's block style.
//
// Contract: ExportJson gives byte for byte what one List document's dump(4) would, without
// copying every object into it. In the YAML, strings stay plain where no YAML reader could take
// them for anything else; the rest are double-quoted with JSON escapes (a subset of YAML's).
#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "tools/gen-export/export_generator.h"

namespace knobsim::gen_export {
namespace {

using json = nlohmann::json;

bool LooksLikeOtherType(std::string_view s) {
  static const char* const kWords[] = {"true", "false", "yes", "no",   "on",
                                       "off",  "y",     "n",   "null", "~"};
  std::string lower(s);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const char* word : kWords) {
    if (lower == word) return true;
  }
  const char first = s.front();
  return (first >= '0' && first <= '9') || first == '+' || first == '-' || first == '.';
}

bool PlainSafe(std::string_view s) {
  if (s.empty() || s.front() == ' ' || s.back() == ' ' || s.back() == ':') return false;
  if (LooksLikeOtherType(s)) return false;
  for (char c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    std::string_view("-_./:@+=() ").find(c) != std::string_view::npos;
    if (!ok) return false;
  }
  return s.find(": ") == std::string_view::npos && s.find(" #") == std::string_view::npos;
}

void YamlScalar(const json& v, std::string& out) {
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    if (PlainSafe(s)) {
      out += s;
    } else {
      out += v.dump();
    }
  } else {
    out += v.dump();
  }
}

bool IsBlock(const json& v) {
  return (v.is_object() || v.is_array()) && !v.empty();
}

void YamlNode(const json& v, int indent, std::string& out);
void YamlMap(const json& v, int indent, bool first_inline, std::string& out);

// One "- item" of a block sequence.
void YamlItem(const json& item, int indent, std::string& out) {
  out.append(static_cast<size_t>(indent), ' ');
  if (item.is_object() && !item.empty()) {
    out += "- ";
    YamlMap(item, indent + 2, true, out);
  } else if (item.is_array() && !item.empty()) {
    out += "-\n";
    YamlNode(item, indent + 2, out);
  } else {
    out += "- ";
    if (item.is_object()) {
      out += "{}";
    } else if (item.is_array()) {
      out += "[]";
    } else {
      YamlScalar(item, out);
    }
    out += '\n';
  }
}

// A mapping whose first line may already be started (after "- ").
void YamlMap(const json& v, int indent, bool first_inline, std::string& out) {
  bool first = true;
  for (auto it = v.begin(); it != v.end(); ++it) {
    if (!(first && first_inline)) out.append(static_cast<size_t>(indent), ' ');
    first = false;
    YamlScalar(json(it.key()), out);
    const json& value = it.value();
    if (!IsBlock(value)) {
      out += ": ";
      if (value.is_object()) {
        out += "{}";
      } else if (value.is_array()) {
        out += "[]";
      } else {
        YamlScalar(value, out);
      }
      out += '\n';
    } else if (value.is_object()) {
      out += ":\n";
      YamlMap(value, indent + 2, false, out);
    } else {
      out += ":\n";
      YamlNode(value, indent, out);  // kubectl puts a mapping's sequence at the key's indent
    }
  }
}

void YamlNode(const json& v, int indent, std::string& out) {
  if (v.is_object() && !v.empty()) {
    YamlMap(v, indent, false, out);
    return;
  }
  if (v.is_array() && !v.empty()) {
    for (const json& item : v) YamlItem(item, indent, out);
    return;
  }
  out.append(static_cast<size_t>(indent), ' ');
  YamlScalar(v, out);
  out += '\n';
}

}  // namespace

// Byte for byte what ListOf(all items).dump(4) gives, without copying every object into one
// document first (that copy cost more than the rest of a 10 000-pod export).
std::string ExportJson(const GeneratedCluster& cluster) {
  std::string out = "{\n    \"apiVersion\": \"v1\",\n    \"items\": [";
  bool first = true;
  for (const std::vector<json>* list : {&cluster.nodes, &cluster.objects}) {
    for (const json& item : *list) {
      out += first ? "\n        " : ",\n        ";
      first = false;
      const std::string text = item.dump(4);
      for (char c : text) {
        out += c;
        if (c == '\n') out += "        ";
      }
    }
  }
  out += first ? "],\n" : "\n    ],\n";
  out +=
      "    \"kind\": \"List\",\n    \"metadata\": {\n        \"resourceVersion\": \"\"\n    }\n}\n";
  return out;
}

std::string ExportYaml(const GeneratedCluster& cluster) {
  std::string out;
  for (const std::vector<json>* list : {&cluster.nodes, &cluster.objects}) {
    if (list == &cluster.objects) out += "---\n";
    out += "apiVersion: v1\nitems:";
    out += list->empty() ? " []\n" : "\n";
    for (const json& item : *list) YamlItem(item, 0, out);
    out += "kind: List\nmetadata:\n  resourceVersion: \"\"\n";
  }
  return out;
}

}  // namespace knobsim::gen_export
