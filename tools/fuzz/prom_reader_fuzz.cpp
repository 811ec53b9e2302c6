// libFuzzer harness for ReadPromString (sim/io/prom_reader.h): saved Prometheus query answers.
// Any input must come back as series or an InputError; a crash, hang, sanitizer report or
// escaping exception is a bug in the reader.
#include <cstddef>
#include <cstdint>
#include <string>

#include "sim/io/prom_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  knobsim::Expected<knobsim::PromResult> r = knobsim::ReadPromString(text, "fuzz.json");
  if (!r.ok()) (void)r.error().ToString();
  return 0;
}
