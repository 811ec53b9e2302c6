// libFuzzer harness for ReadScenarioString (sim/io/scenario_reader.h): scenario YAML.
// Any input must come back as a Scenario or an InputError; a crash, hang, sanitizer report or
// escaping exception is a bug in the reader.
#include <cstddef>
#include <cstdint>
#include <string>

#include "sim/io/scenario_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  knobsim::Expected<knobsim::Scenario> s = knobsim::ReadScenarioString(text, "fuzz.yaml");
  if (!s.ok()) (void)s.error().ToString();
  return 0;
}
