// libFuzzer harness for the recorded-traffic readers (sim/io/arrival_file.h): the arrivals CSV
// of `traffic: {replay: FILE}` under each kind of `start`, the counts file and the per-pod
// counts CSV, the same bytes to each. Arrivals that read are sorted by time.
#include "sim/io/arrival_file.h"
#include "tools/fuzz/fuzz_input.h"

namespace {

void ReadArrivals(const std::string& text, const knobsim::RecordingStart& start) {
  auto arrivals = knobsim::ParseArrivalsCsv(text, "arrivals.csv", start);
  if (!arrivals.ok()) {
    (void)arrivals.error().ToString();
    return;
  }
  for (size_t i = 1; i < arrivals->at.size(); ++i) {
    if (arrivals->at[i] < arrivals->at[i - 1]) knobsim::fuzz::Broken("arrivals not sorted");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = knobsim::fuzz::Text(data, size);
  ReadArrivals(text, {});
  ReadArrivals(text, {.first = true});
  ReadArrivals(text, {.epoch_s = 1772445600.0});  // 2026-03-02T10:00:00Z
  if (auto counts = knobsim::ParseCountsFile(text, "counts.txt"); !counts.ok())
    (void)counts.error().ToString();
  if (auto per_pod = knobsim::ParsePerPodCountsCsv(text, "per-pod.csv"); !per_pod.ok())
    (void)per_pod.error().ToString();
  return 0;
}
