#include "sim/upgrade/fix_quotas.h"

#include <doctest/doctest.h>

#include <cmath>

#include "models/gpu_catalog.h"
#include "models/memory_isolation.h"
#include "sim/io/scenario_reader.h"

namespace knobsim {
namespace {

// The error's text, or "" when there is none: doctest evaluates a message even on success
// (with -s), where error() would throw.
template <class T>
std::string Why(const Expected<T>& e) {
  return e.ok() ? std::string() : e.error().ToString();
}

std::string RepositoryRoot() {
  const std::string here = __FILE__;
  const size_t at = here.rfind("sim/upgrade/");
  return at == std::string::npos ? std::string() : here.substr(0, at);
}

const Workload& Named(const Scenario& s, const std::string& name) {
  for (const Workload& w : s.workloads)
    if (w.name == name) return w;
  FAIL("no workload " << name);
  return s.workloads.front();
}

}  // namespace

TEST_CASE(
    "fix-quotas-first raises cgpu-upgrade's over-quota services to their peak + 12 % and "
    "leaves the rest alone") {
  Expected<Scenario> read = ReadScenarioFile(RepositoryRoot() + "scenarios/cgpu-upgrade.yaml");
  REQUIRE_MESSAGE(read.ok(), Why(read));
  Scenario s = *read;
  const int embed_before = Named(s, "embed").gpu_mem;
  Expected<std::vector<QuotaFix>> fixes = FixQuotasToPeak(s);
  REQUIRE_MESSAGE(fixes.ok(), Why(fixes));
  REQUIRE(fixes->size() == 2);

  // ocr: 400 MiB context + 8 GiB weights + 256 MiB for its one request = 8848 MiB on an A10
  // (8898 MiB on an L20, whose context is 450 MiB: the larger answer is the one kept);
  // + 12 % = 9910 MiB, which 10 units hold on an A10 (10467 visible MiB) and 9 do not (9420).
  const QuotaFix& ocr = (*fixes)[0];
  CHECK(ocr.workload == "ai/ocr");
  CHECK(ocr.from_units == 4);
  CHECK(ocr.to_units == 10);
  CHECK(ocr.peak_mib == 8898);
  CHECK(VisibleQuotaMib(23028, 10, CardMemoryUnits(23028)) >= std::ceil(8848 * 1.12));
  CHECK(VisibleQuotaMib(23028, 9, CardMemoryUnits(23028)) < std::ceil(8848 * 1.12));
  CHECK(Named(s, "ocr").gpu_mem == 10);
  CHECK(ocr.note == "peak 8898 MiB per card + 12 % headroom needs 10 units");

  // asr: 400 + 5 GiB + 2 requests × 512 MiB = 6544 MiB (L20: 6594); + 12 % = 7386 MiB on the
  // L20 -> 8 units (7 give 7328 MiB).
  const QuotaFix& asr = (*fixes)[1];
  CHECK(asr.workload == "ai/asr");
  CHECK(asr.from_units == 6);
  CHECK(asr.to_units == 8);
  CHECK(asr.peak_mib == 6594);
  CHECK(Named(s, "asr").gpu_mem == 8);

  // embed (8 units for a 5058 MiB peak) already holds its peak; etcd and vectordb use no GPU.
  CHECK(Named(s, "embed").gpu_mem == embed_before);
  CHECK(Named(s, "etcd").gpu_mem == 0);
  CHECK(Named(s, "vectordb").gpu_mem == 0);

  // After the fix every shared-GPU peak sits under 90 % of its visible quota.
  for (const Workload& w : s.workloads) {
    if (w.gpu_mem == 0) continue;
    const int64_t peak_a10 = 400 + w.memory.weights_mib + w.memory.activation_mib * w.concurrency;
    CHECK_MESSAGE(peak_a10 < 0.9 * static_cast<double>(VisibleQuotaMib(23028, w.gpu_mem, 22)),
                  w.name);
  }
}

TEST_CASE("a workload with unlimited concurrency keeps its quota, with a note saying why") {
  Expected<Scenario> read = ReadScenarioFile(RepositoryRoot() + "scenarios/cgpu-upgrade.yaml");
  REQUIRE(read.ok());
  Scenario s = *read;
  for (Workload& w : s.workloads)
    if (w.name == "asr") w.concurrency = 0;
  Expected<std::vector<QuotaFix>> fixes = FixQuotasToPeak(s);
  REQUIRE(fixes.ok());
  REQUIRE(fixes->size() == 2);
  const QuotaFix& asr = (*fixes)[1];
  CHECK(asr.workload == "ai/asr");
  CHECK(asr.to_units == 6);
  CHECK(asr.peak_mib == 0);
  CHECK(asr.note.find("unlimited concurrency") != std::string::npos);
  CHECK(Named(s, "asr").gpu_mem == 6);
}

TEST_CASE("a larger headroom asks for more units, and a negative one is refused") {
  Expected<Scenario> read = ReadScenarioFile(RepositoryRoot() + "scenarios/cgpu-upgrade.yaml");
  REQUIRE(read.ok());
  Scenario s = *read;
  Expected<std::vector<QuotaFix>> fixes = FixQuotasToPeak(s, 30);
  REQUIRE(fixes.ok());
  // ocr: 8898 × 1.3 = 11568 MiB -> 12 units on the L20 (12564 MiB; 11 give 11517).
  CHECK((*fixes)[0].to_units == 12);
  Scenario t = *read;
  Expected<std::vector<QuotaFix>> bad = FixQuotasToPeak(t, -1);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().path == "--headroom");
  CHECK(Named(t, "ocr").gpu_mem == 4);
}

}  // namespace knobsim
