// YAML tags (`!!str 2`, `!!binary ...`, `!foo 5`) as knobsim's YAML readers treat them.
//
// Every reader reads a value by its field's type (a replica count as an integer, a label as a
// string), so a tag can only agree with that reading or change it. A tag that says what the
// untagged text already says is harmless and accepted: `!!str` on a scalar (read as a quoted
// one), `!!map` on a mapping, `!!seq` on a sequence, and `!!int`, `!!float`, `!!bool` on a
// scalar that YAML's core schema resolves to that type untagged. Every other tag would make the
// value mean something else than the reader reads (`!!binary` is base64 bytes, `!!null ''` is
// null, `!!timestamp` a time, a local `!foo` whatever its application says), so it is refused
// with the line, never silently dropped.
#pragma once

#include <string>
#include <string_view>

#include "sim/input_error.h"

namespace knobsim {

enum class YamlShape { kScalar, kSequence, kMap };

// Why the value of this `shape` (with this text, for scalars) tagged `tag` — as yaml-cpp
// reports tags: "?" and "!" for untagged plain and quoted values, "tag:yaml.org,2002:str" for
// `!!str`, "!foo" for local tags — is refused, as a failure that is only the message; ok when
// the tag is accepted.
Status CheckYamlTag(std::string_view tag, YamlShape shape, std::string_view scalar);

// The hint beside a refused tag.
inline constexpr std::string_view kYamlTagHint =
    "remove the tag: knobsim reads each value by its field's type";

}  // namespace knobsim
