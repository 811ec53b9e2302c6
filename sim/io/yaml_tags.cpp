#include "sim/io/yaml_tags.h"

#include <regex>

namespace knobsim {

namespace {

constexpr std::string_view kCoreTagPrefix = "tag:yaml.org,2002:";

// YAML 1.2 core schema resolution (yaml.org/spec/1.2.2 §10.3.2), for the three scalar types a
// redundant tag may name.
bool ResolvesTo(std::string_view type, std::string_view text) {
  static const std::regex kInt("[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+");
  static const std::regex kFloat(
      "[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?|[-+]?\\.(inf|Inf|INF)|"
      "\\.(nan|NaN|NAN)");
  static const std::regex kBool("true|True|TRUE|false|False|FALSE");
  const std::string s(text);
  if (type == "int") return std::regex_match(s, kInt);
  if (type == "float") return std::regex_match(s, kFloat) || std::regex_match(s, kInt);
  if (type == "bool") return std::regex_match(s, kBool);
  return false;
}

std::string_view ShapeName(YamlShape shape) {
  switch (shape) {
    case YamlShape::kScalar:
      return "a scalar";
    case YamlShape::kSequence:
      return "a sequence";
    case YamlShape::kMap:
      return "a mapping";
  }
  return "a value";
}

}  // namespace

Status CheckYamlTag(std::string_view tag, YamlShape shape, std::string_view scalar) {
  if (tag.empty() || tag == "?" || tag == "!") return Status::Ok();
  std::string shown(tag);
  if (tag.substr(0, kCoreTagPrefix.size()) == kCoreTagPrefix) {
    const std::string_view type = tag.substr(kCoreTagPrefix.size());
    shown = "!!" + std::string(type);
    if ((type == "str" && shape == YamlShape::kScalar) ||
        (type == "map" && shape == YamlShape::kMap) ||
        (type == "seq" && shape == YamlShape::kSequence)) {
      return Status::Ok();
    }
    if (shape == YamlShape::kScalar && ResolvesTo(type, scalar)) return Status::Ok();
    if (type == "str" || type == "map" || type == "seq" || type == "int" || type == "float" ||
        type == "bool") {
      return Status::Failure("the YAML tag `" + shown + "` does not match its value (" +
                             std::string(ShapeName(shape)) +
                             (shape == YamlShape::kScalar ? " that reads otherwise untagged" : "") +
                             ")");
    }
  }
  return Status::Failure("the YAML tag `" + shown +
                         "` is not read by knobsim (it would change what the value means)");
}

}  // namespace knobsim
