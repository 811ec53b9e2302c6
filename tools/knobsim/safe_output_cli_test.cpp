// End-to-end: the one output writer (sim/output_file.h, docs/limits.md "Output files") on crafted
// targets, through the real binary: a planted symlink, a FIFO, a 0600 file, a missing directory.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>

#include "tools/knobsim/e2e_support.h"

namespace knobsim::e2e {
namespace {

// A short run of the quickstart scenario writing its results document to `target`.
std::string ShortRun(const std::string& target) {
  return "run " + QuotedSourcePath("scenarios/quickstart.yaml") + " --duration 4m --quiet --json " +
         Quoted(target);
}

TEST_CASE("safe output: symlinks planted at the old temporary names are never followed") {
  const std::string victim = TempPath("victim"), target = TempPath("planted.json");
  std::ofstream(victim) << "precious";
  // The old name was TARGET.tmp.PID: plant the next few hundred PIDs.
  const int next = static_cast<int>(::getpid());
  for (int pid = next; pid < next + 300; ++pid) {
    (void)!::symlink(victim.c_str(), (target + ".tmp." + std::to_string(pid)).c_str());
  }
  const Outcome o = Run(ShortRun(target));
  CHECK(o.exit_code == 0);
  CHECK(ReadFile(victim) == "precious");
  CHECK(ReadFile(target).find("knobsim.results/v1") != std::string::npos);
  for (int pid = next; pid < next + 300; ++pid)
    std::remove((target + ".tmp." + std::to_string(pid)).c_str());
  std::remove(victim.c_str());
  std::remove(target.c_str());
}

TEST_CASE("safe output: a 0600 target keeps 0600 when it is replaced") {
  const std::string target = TempPath("private.json");
  std::ofstream(target) << "old";
  REQUIRE(::chmod(target.c_str(), 0600) == 0);
  CHECK(Run(ShortRun(target)).exit_code == 0);
  struct stat st {};
  REQUIRE(::stat(target.c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0600);
  std::remove(target.c_str());
}

TEST_CASE("safe output: a FIFO target is written into, not replaced by a regular file") {
  const std::string fifo = TempPath("results.fifo"), captured = TempPath("captured.json");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const std::string reader = "cat " + Quoted(fifo) + " > " + Quoted(captured) + " &";
  REQUIRE(std::system(reader.c_str()) == 0);
  CHECK(Run(ShortRun(fifo)).exit_code == 0);
  struct stat st {};
  REQUIRE(::stat(fifo.c_str(), &st) == 0);
  CHECK(S_ISFIFO(st.st_mode));
  for (int i = 0; i < 100 && ReadFile(captured).find("\"variants\"") == std::string::npos; ++i)
    ::usleep(20000);  // the background cat may still be copying
  CHECK(ReadFile(captured).find("knobsim.results/v1") != std::string::npos);
  std::remove(fifo.c_str());
  std::remove(captured.c_str());
}

TEST_CASE("safe output: /dev/null and /dev/stdout are written in place") {
  CHECK(Run(ShortRun("/dev/null")).exit_code == 0);
  struct stat st {};
  REQUIRE(::stat("/dev/null", &st) == 0);
  CHECK(S_ISCHR(st.st_mode));
  const Outcome o = Run(ShortRun("/dev/stdout"));
  CHECK(o.exit_code == 0);
  CHECK(o.out.find("knobsim.results/v1") != std::string::npos);
}

TEST_CASE("safe output: an unwritable output path is refused before any simulation") {
  const std::string dir = TempPath("an-output-dir");
  REQUIRE(::mkdir(dir.c_str(), 0700) == 0);
  struct Case {
    std::string args;
    const char* expected;
  };
  const std::string quickstart = QuotedSourcePath("scenarios/quickstart.yaml");
  const Case cases[] = {
      // A sweep of tens of seconds: refused at once.
      {"whatif " + quickstart + " --knob traffic=100 -q --json /nonexistent-dir/x.json",
       "--json: cannot write /nonexistent-dir/x.json: the directory /nonexistent-dir does not "
       "exist"},
      {"run " + quickstart + " -q --json " + Quoted(dir), "is a directory"},
      {"plan " + QuotedSourcePath("scenarios/capacity-plan.yaml") +
           " -q --report /nonexistent-dir/r.html",
       "--report: cannot write"},
      {"upgrade " + QuotedSourcePath("scenarios/cgpu-upgrade.yaml") +
           " -q --json /nonexistent-dir/u.json",
       "--json: cannot write"},
      {"import --kube " + QuotedSourcePath("tools/knobsim/testdata/export20/export.json") +
           " -o /nonexistent-dir/s.yaml",
       "--out: cannot write"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.args);
    const auto start = std::chrono::steady_clock::now();
    const Outcome o = Run(c.args);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    CHECK(o.exit_code == 2);
    CHECK(o.err.find(c.expected) != std::string::npos);
    CHECK(seconds < 5);
  }
  ::rmdir(dir.c_str());
}

}  // namespace
}  // namespace knobsim::e2e
