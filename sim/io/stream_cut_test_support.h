// The units a streaming cut (json_stream.h, yaml_stream.h) makes of a text written to a file,
// for the cuts' tests.
#pragma once

#include <cstdio>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "sim/input_error.h"

namespace knobsim::stream_cut_test_support {

struct Cut {
  std::vector<std::string> texts;
  std::vector<int> lines;
  std::vector<long> items;
  std::vector<bool> envelopes;
  std::string error;  // "" when the whole file was cut
};

// `text` written to `path`, then cut by `stream` (StreamJsonUnits or StreamYamlUnits) naming the
// file `file` in its errors.
template <typename Unit>
Cut CutFile(const std::string& text, const std::string& path, const std::string& file,
            size_t max_unit,
            Status (*stream)(const std::string&, const std::string&, size_t,
                             const std::function<Status(const Unit&)>&)) {
  std::ofstream(path, std::ios::binary) << text;
  Cut cut;
  const Status s = stream(path, file, max_unit, [&](const Unit& u) {
    cut.texts.push_back(u.text);
    cut.lines.push_back(u.first_line);
    cut.items.push_back(u.item);
    cut.envelopes.push_back(u.envelope);
    return Status::Ok();
  });
  if (!s) cut.error = s.error().ToString();
  std::remove(path.c_str());
  return cut;
}

}  // namespace knobsim::stream_cut_test_support
