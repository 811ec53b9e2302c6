// End-to-end: the CI gate of docs/ci-gate.md on scenarios/gate-example — import the manifests
// with the overlay, run, and `knobsim diff` the base against a changed copy, as a pull request
// would.
#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "tools/knobsim/e2e_support.h"

namespace knobsim::e2e {
namespace {

namespace fs = std::filesystem;

// A copy of the example repository, removed at the end of the test.
struct Repo {
  explicit Repo(const std::string& tag) : dir(TempPath("gate-" + tag)) {
    fs::remove_all(dir);
    fs::copy(SourcePath("scenarios/gate-example"), dir, fs::copy_options::recursive);
  }
  ~Repo() { fs::remove_all(dir); }

  // Replaces `from` (which must occur once) by `to` in a file of the copy.
  void Edit(const std::string& file, const std::string& from, const std::string& to) const {
    const std::string path = dir + "/" + file;
    std::string text = ReadFile(path);
    const size_t at = text.find(from);
    REQUIRE_MESSAGE(at != std::string::npos, file << " lacks " << from);
    REQUIRE(text.find(from, at + 1) == std::string::npos);
    text.replace(at, from.size(), to);
    std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
  }

  // The gate's two steps on this version: import + overlay, then run; the results' path.
  std::string Results() const {
    const std::string scenario = dir + "/scenario.yaml", json = dir + "/results.json";
    const Outcome imported = Run("import --kube '" + dir + "/manifests' --overlay '" + dir +
                                 "/overlay.yaml' -o '" + scenario + "'");
    REQUIRE_MESSAGE(imported.exit_code == 0, imported.err);
    const Outcome ran = Run("run '" + scenario + "' --quiet --json '" + json + "'");
    REQUIRE_MESSAGE((ran.exit_code == 0 || ran.exit_code == 1), ran.err);
    return json;
  }

  std::string dir;
};

TEST_CASE("gate: manifests and overlay import to workloads the scheduler places") {
  const Repo repo("import");
  const Outcome o =
      Run("import --kube '" + repo.dir + "/manifests' --overlay '" + repo.dir + "/overlay.yaml'");
  REQUIRE_MESSAGE(o.exit_code == 0, o.err);
  CHECK(o.err.find("2 workloads, 0 placed pods") != std::string::npos);
  CHECK(o.out.find("name: gate-example") != std::string::npos);
  CHECK(o.out.find("pods:") == std::string::npos);  // no live pods: the scheduler places them
  CHECK(o.out.find("registry.example.com/vision/ocr:1.4.2") != std::string::npos);

  // A directory holding no manifest is bad input, and so is an overlay naming no workload.
  const Outcome empty = Run("import --kube '" + repo.dir + "/no-such-dir'");
  CHECK(empty.exit_code == 2);
  repo.Edit("overlay.yaml", "  - name: ocr\n", "  - name: orc\n");
  const Outcome typo =
      Run("import --kube '" + repo.dir + "/manifests' --overlay '" + repo.dir + "/overlay.yaml'");
  CHECK(typo.exit_code == 2);
  CHECK(typo.err.find("overlay.yaml:") != std::string::npos);
  CHECK(typo.err.find("workloads[1].name: matches no imported workload") != std::string::npos);
}

TEST_CASE("gate: the same inputs twice give no difference at all; an unrelated label passes") {
  const Repo base("base"), again("again"), label("label");
  label.Edit("manifests/face-detect.yaml", "owner-team: cameras", "owner-team: edge-cameras");
  const std::string b = base.Results();
  const Outcome same = Run("diff '" + b + "' '" + again.Results() + "'");
  CHECK(same.exit_code == 0);
  CHECK(same.out == "knobsim diff: no difference at all\n");
  const Outcome harmless = Run("diff '" + b + "' '" + label.Results() + "' --format markdown");
  CHECK_MESSAGE(harmless.exit_code == 0, harmless.out);
}

TEST_CASE("gate: a quota lowered below the model under hard isolation fails on the workload") {
  const Repo base("q-base"), pr("quota");
  pr.Edit("manifests/ocr.yaml", "aliyun.com/gpu-mem: 5", "aliyun.com/gpu-mem: 2");
  const Outcome o = Run("diff '" + base.Results() + "' '" + pr.Results() + "' --format markdown");
  CHECK(o.exit_code == 1);
  CHECK_MESSAGE(o.out.find("vision/ocr") != std::string::npos, o.out);
  const bool names_rule = o.out.find("errors:+0") != std::string::npos ||
                          o.out.find("slo_met:any") != std::string::npos;
  CHECK_MESSAGE(names_rule, o.out);
}

TEST_CASE("gate: moving the pool from spread to binpack piles pods on one card and fails p99") {
  const Repo base("p-base"), pr("binpack");
  pr.Edit("overlay.yaml", "ack.node.gpu.placement: spread", "ack.node.gpu.placement: binpack");
  const Outcome o = Run("diff '" + base.Results() + "' '" + pr.Results() + "'");
  CHECK(o.exit_code == 1);
  CHECK_MESSAGE(o.out.find("p99:+10%") != std::string::npos, o.out);
  CHECK(o.out.find("placement") != std::string::npos);  // the pods that moved are listed
}

}  // namespace
}  // namespace knobsim::e2e
