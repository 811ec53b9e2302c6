// libFuzzer harness for the openb trace readers (sim/replay/trace_reader.h): the same bytes go
// to ParseNodeCsv and ParsePodCsv. Any input must come back as rows or an InputError; a crash,
// hang, sanitizer report or escaping exception is a bug in the reader.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "sim/replay/trace_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto nodes = knobsim::replay::ParseNodeCsv(text, "nodes.csv");
  if (!nodes.ok()) (void)nodes.error().ToString();
  auto pods = knobsim::replay::ParsePodCsv(text, "pods.csv");
  if (!pods.ok()) (void)pods.error().ToString();
  return 0;
}
