// End-to-end tests of `knobsim replay` on the real binary and the shared Alibaba trace
// (../shared/data/alibaba-gpu-v2023 beside the checkout, as CI lays it out): the paper's result
// files, thread-independence, the medians table, errors and exit codes, and the timed replay.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "sim/replay/test_data.h"
#include "tools/knobsim/e2e_support.h"

namespace knobsim::e2e {
namespace {

using replay::testing::TraceAvailable;
using replay::testing::TraceDir;

const char* const kResultFiles[] = {"analysis_allo_discrete.csv", "analysis_frag_discrete.csv",
                                    "analysis_frag_ratio_discrete.csv"};

std::string Trace(const std::string& file) {
  return Quoted(TraceDir() + file);
}

// `replay` on the GPU nodes and the given pod files, with the rest of the arguments.
std::string ReplayArgs(const std::string& pods, const std::string& rest) {
  return "replay --nodes " + Trace("openb_node_list_gpu_node.csv") + " --pods " + pods + " " + rest;
}

std::string FirstLine(const std::string& text) {
  return text.substr(0, text.find('\n'));
}

size_t Lines(const std::string& text) {
  size_t n = 0;
  for (char c : text) n += c == '\n' ? 1 : 0;
  return n;
}

// A fresh directory under the test's temporary prefix, removed on scope exit.
struct TempDir {
  explicit TempDir(const std::string& name) : path(TempPath(name)) {
    std::filesystem::remove_all(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::string file(const std::string& name) const { return path + "/" + name; }
  std::string path;
};

TEST_CASE("replay writes the paper's three files, the same at 1, 2 and the default threads" *
          doctest::skip(!TraceAvailable())) {
  const TempDir one("replay-t1"), two("replay-t2"), cores("replay-cores");
  const std::string pods = Trace("openb_pod_list_default.csv");
  const std::string run = "--policy fgd,random,ack-binpack --seeds 42,43 --quiet";
  const Outcome a = Run(ReplayArgs(pods, run + " --threads 1 --out " + Quoted(one.path)));
  const Outcome b = Run(ReplayArgs(pods, run + " --threads 2 --out " + Quoted(two.path)));
  // Without --threads: the OpenMP default (every core).
  const Outcome c = Run(ReplayArgs(pods, run + " --out " + Quoted(cores.path)));
  REQUIRE(a.exit_code == 0);
  REQUIRE(b.exit_code == 0);
  REQUIRE(c.exit_code == 0);
  CHECK(a.out.empty());  // --quiet: no table
  for (const char* name : kResultFiles) {
    INFO(name);
    const std::string ours = ReadFile(one.file(name));
    REQUIRE(!ours.empty());
    CHECK(ours == ReadFile(two.file(name)));
    CHECK(ours == ReadFile(cores.file(name)));
    const std::string reference = ReadFile(TraceDir() + "fgd-expected/" + name);
    CHECK(FirstLine(ours) == FirstLine(reference));
    CHECK(Lines(ours) == 1 + 3 * 2);  // header, 3 policies × 2 seeds
  }
  const std::string allo = ReadFile(one.file(kResultFiles[0]));
  CHECK(allo.find("\nopenb_pod_list_default,06-FGD,1.3,42,6212,") != std::string::npos);
  CHECK(allo.find("\nopenb_pod_list_default,07-ACK-Binpack,1.3,43,6212,") != std::string::npos);
}

TEST_CASE("replay --expected prints our medians beside the paper's" *
          doctest::skip(!TraceAvailable())) {
  const TempDir out("replay-expected");
  const Outcome o = Run(ReplayArgs(Trace("openb_pod_list_default.csv"),
                                   "--policy fgd,ack-spread --seeds 42-43 --out " +
                                       Quoted(out.path) + " --expected " + Trace("fgd-expected")));
  REQUIRE(o.exit_code == 0);
  CHECK(o.out.find("x=100") != std::string::npos);
  CHECK(o.out.find("paper") != std::string::npos);
  // FGD is deterministic: its medians are the paper's to the cell.
  const size_t fgd = o.out.find("06-FGD");
  REQUIRE(fgd != std::string::npos);
  const std::string line = o.out.substr(fgd, o.out.find('\n', fgd) - fgd);
  CHECK(line.find("+0.000") != std::string::npos);
  CHECK(line.find(" 2 ") != std::string::npos);  // seeds
  // ACK spread is not in the paper: no reference, dashes.
  const size_t spread = o.out.find("08-ACK-Spread");
  REQUIRE(spread != std::string::npos);
  CHECK(o.out.find(" - ", spread) != std::string::npos);
}

TEST_CASE("a malformed pod row exits 2 naming the file, line and column" *
          doctest::skip(!TraceAvailable())) {
  const TempDir dir("replay-bad");
  std::filesystem::create_directories(dir.path);
  const std::string bad = dir.file("bad_pods.csv");
  std::ofstream(bad) << "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,"
                        "creation_time,deletion_time,scheduled_time\n"
                        "openb-pod-0000,12000,16384,1,1000,,LS,Running,0,100,0\n"
                        "openb-pod-0001,6cores,12288,1,460,,LS,Running,5,100,5\n";
  const Outcome o =
      Run(ReplayArgs(Quoted(bad), "--policy fgd --seeds 42 --out " + Quoted(dir.file("out"))));
  CHECK(o.exit_code == 2);
  CHECK(o.err.find("bad_pods.csv:3:") != std::string::npos);
  CHECK(o.err.find("cpu_milli") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir.file("out/analysis_allo_discrete.csv")));
}

TEST_CASE("replay without its required arguments, or with bad ones, exits 2") {
  CHECK(Run("replay").exit_code == 2);
  CHECK(Run("replay --nodes x.csv --pods y.csv --policy fgd").exit_code == 2);  // no --out
  CHECK(Run("replay --nodes x.csv --pods y.csv --out d").exit_code == 2);       // no --policy
  const Outcome missing =
      Run("replay --nodes /nonexistent/nodes.csv --pods y.csv --policy fgd "
          "--out " +
          Quoted(TempPath("never")));
  CHECK(missing.exit_code == 2);
  CHECK(missing.err.find("/nonexistent/nodes.csv") != std::string::npos);
  const Outcome policy = Run("replay --nodes x.csv --pods y.csv --policy tetris --out d");
  CHECK(policy.exit_code == 2);
  CHECK(policy.err.find("unknown policy \"tetris\"") != std::string::npos);
  CHECK(Run("replay --nodes x.csv --pods y.csv --policy fgd --seeds 51-42 --out d").exit_code == 2);
}

TEST_CASE("replay --timed writes one CSV per run, the same for any thread count" *
          doctest::skip(!TraceAvailable())) {
  const TempDir one("timed-t1"), two("timed-t2");
  const std::string run =
      "--timed --compress 100000 --interval 6h --policy fgd,ack-spread --seeds 42-43 --threads ";
  const Outcome a =
      Run(ReplayArgs(Trace("openb_pod_list_default.csv"), run + "1 --out " + Quoted(one.path)));
  const Outcome b = Run(
      ReplayArgs(Trace("openb_pod_list_default.csv"), run + "2 --quiet --out " + Quoted(two.path)));
  REQUIRE(a.exit_code == 0);
  REQUIRE(b.exit_code == 0);
  for (const char* policy : {"fgd", "ack-spread"}) {
    for (const char* seed : {"42", "43"}) {
      const std::string name =
          std::string("timed_openb_pod_list_default_") + policy + "_" + seed + ".csv";
      INFO(name);
      const std::string csv = ReadFile(one.file(name));
      REQUIRE(!csv.empty());
      CHECK(csv == ReadFile(two.file(name)));
      CHECK(FirstLine(csv).rfind("time_s,running_pods,pending_pods,allocated_gpu_pct,", 0) == 0);
      CHECK(csv.find("\n0,") != std::string::npos);
      CHECK(csv.find("\n21600,") != std::string::npos);  // 6 h
    }
  }
  CHECK_FALSE(std::filesystem::exists(one.file("analysis_allo_discrete.csv")));
  CHECK(a.out.find("pending") != std::string::npos);
  CHECK(a.out.find("openb_pod_list_default  fgd") != std::string::npos);
  CHECK(a.out.find("openb_pod_list_default  ack-spread") != std::string::npos);
}

TEST_CASE("replay --timed refuses traces without times and options it has no use for" *
          doctest::skip(!TraceAvailable())) {
  const TempDir out("timed-bad");
  const std::string to = " --out " + Quoted(out.path);
  const Outcome multigpu =
      Run(ReplayArgs(Trace("openb_pod_list_multigpu20.csv"), "--timed --policy fgd" + to));
  CHECK(multigpu.exit_code == 2);
  CHECK(multigpu.err.find("openb_pod_list_multigpu20.csv: no creation times") != std::string::npos);
  const std::string pods = Trace("openb_pod_list_default.csv");
  CHECK(Run(ReplayArgs(pods, "--timed --tune 1.2 --policy fgd" + to)).exit_code == 2);
  CHECK(Run(ReplayArgs(pods, "--timed --policy fgd --expected " + Trace("fgd-expected") + to))
            .exit_code == 2);
  CHECK(Run(ReplayArgs(pods, "--interval 1h --policy fgd" + to)).exit_code == 2);
  CHECK(Run(ReplayArgs(pods, "--timed --interval 1day --policy fgd" + to)).exit_code == 2);
  CHECK(Run(ReplayArgs(pods, "--timed --interval 1ms --policy fgd" + to)).exit_code == 2);
  CHECK(Run(ReplayArgs(pods, "--timed --compress 0.5 --policy fgd" + to)).exit_code == 2);
}

TEST_CASE("replay --help describes the timed replay") {
  const Outcome o = Run("replay --help");
  CHECK(o.exit_code == 0);
  CHECK(o.out.find("--timed") != std::string::npos);
  CHECK(o.out.find("--interval") != std::string::npos);
}

}  // namespace
}  // namespace knobsim::e2e
