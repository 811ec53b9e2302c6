// libFuzzer harness for HeadlineFromJson (sim/backtest/backtest_headline.h): a `backtest --json`
// document or a record of the backtest store, which `whatif` and `plan` read back. A headline
// that reads is printed as those commands print it.
#include "sim/backtest/backtest_headline.h"
#include "sim/io/json_document.h"
#include "tools/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto doc = knobsim::ParseJsonDocument(knobsim::fuzz::Text(data, size), "backtest.json");
  if (!doc.ok()) {
    (void)doc.error().ToString();
    return 0;
  }
  auto headline = knobsim::backtest::HeadlineFromJson(*doc);
  if (!headline.ok()) {
    (void)headline.error().ToString();
    return 0;
  }
  (void)knobsim::backtest::HeadlineText(*headline);
  return 0;
}
