// libFuzzer harness for the block-YAML fast path (sim/io/yaml_block.h), differential: whatever
// text the fast path reads must read to the same tree through yaml-cpp alone (the header's
// promise), and any text must end as a tree or a decline, never a crash, hang or sanitizer
// report. A difference prints both outlines and aborts.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "sim/io/document_tree.h"
#include "sim/io/yaml_block.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  knobsim::DocumentTree fast(text);
  if (!knobsim::ReadBlockYaml(text, fast)) return 0;
  knobsim::DocumentTree general(text);
  const knobsim::Status read = knobsim::ParseYamlWithYamlCpp(text, "fuzz.yaml", general);
  const std::string want = read ? knobsim::TreeOutline(general) : read.error().ToString();
  const std::string got = knobsim::TreeOutline(fast);
  if (got != want) {
    std::fprintf(stderr, "fast path:\n%s\nyaml-cpp:\n%s\n", got.c_str(), want.c_str());
    std::abort();
  }
  return 0;
}
