// libFuzzer harness for ReadPriceString (sim/io/price_reader.h): the `--prices` file of
// `knobsim plan`. A book that reads is asked for each of its instances, as the plan asks: Find
// must answer an instance of that GPU type and card count.
#include "sim/io/price_reader.h"
#include "tools/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto book = knobsim::ReadPriceString(knobsim::fuzz::Text(data, size), "prices.yaml");
  if (!book.ok()) {
    (void)book.error().ToString();
    return 0;
  }
  for (const knobsim::InstancePrice& i : book->instances) {
    const knobsim::InstancePrice* found = book->Find(i.gpu_type, i.gpus);
    if (found == nullptr || found->gpus != i.gpus)
      knobsim::fuzz::Broken("Find misses instance " + i.instance_type);
  }
  return 0;
}
