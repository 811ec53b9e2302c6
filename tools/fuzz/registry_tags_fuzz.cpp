// libFuzzer harness for ParseRegistryTags (sim/check/registry_tags.h): the `--registry-tags`
// file of `knobsim check`. Every repository the file lists is known and holds its listed tags.
#include "sim/check/registry_tags.h"
#include "tools/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = knobsim::fuzz::Text(data, size);
  auto tags = knobsim::ParseRegistryTags(text, "registry-tags");
  if (!tags.ok()) {
    (void)tags.error().ToString();
  } else {
    for (const auto& [repository, listed] : tags->tags) {
      for (const std::string& tag : listed) {
        if (!tags->Has(knobsim::ImageRef{repository, tag, ""}))
          knobsim::fuzz::Broken("listed tag " + repository + ":" + tag + " not held");
      }
    }
  }
  (void)knobsim::ParseImageRef(text);  // never fails, whatever the string
  return 0;
}
