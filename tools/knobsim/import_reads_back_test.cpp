// End-to-end: whatever `knobsim import` writes, `knobsim check` and `knobsim run` read back
// (issue 17: "the importer must never write what the reader rejects"). Every export fixture of
// the repository and exports generated with several seeds and profiles are imported, then the
// scenario is checked and run for a short while. A name that would break out of the scenario's
// YAML (a newline in a namespace) is refused by the export reader, with the file and line,
// before any scenario is written.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tools/knobsim/e2e_support.h"

namespace knobsim::e2e {
namespace {

// The --prom arguments for every saved answer in `dir` (none when it does not exist).
std::string PromArgs(const std::string& dir) {
  std::string args;
  if (!std::filesystem::is_directory(dir)) return args;
  std::vector<std::string> files;
  for (const auto& f : std::filesystem::directory_iterator(dir)) files.push_back(f.path());
  std::sort(files.begin(), files.end());
  for (const std::string& f : files) {
    args += " --prom " + Quoted(f);
    if (f.find("http_requests_per_second") != std::string::npos)
      args += " --rate-metric http_requests_per_second";
  }
  return args;
}

// Imports `import_args` into a file, then checks and runs the scenario it wrote.
void ImportsAndReadsBack(const std::string& import_args, const std::string& name) {
  CAPTURE(name);
  const std::string scenario = TempPath(name + ".yaml");
  const Outcome imported = Run("import " + import_args + " -o " + Quoted(scenario));
  REQUIRE_MESSAGE(imported.exit_code == 0, imported.err);
  const Outcome checked = Run("check " + Quoted(scenario) + " -q");
  CHECK_MESSAGE(checked.exit_code != 2, checked.err);
  const Outcome ran = Run("run " + Quoted(scenario) + " --duration 2m --quiet");
  CHECK_MESSAGE(ran.exit_code == 0, ran.err);
  std::filesystem::remove(scenario);
}

TEST_CASE("every export fixture imports to a scenario that check and run read back") {
  struct Fixture {
    const char* name;
    std::vector<const char*> kube;
    const char* prom_dir;  // relative to the source tree, or "" for none
  };
  const Fixture fixtures[] = {
      {"ack-cluster", {"sim/io/testdata/kube/ack-cluster.json"}, ""},
      {"kube-export-json", {"sim/io/testdata/kube/export.json"}, ""},
      {"kube-export-yaml", {"sim/io/testdata/kube/export.yaml"}, ""},
      {"export20-json", {"tools/knobsim/testdata/export20/export.json"},
       "tools/knobsim/testdata/export20/prom"},
      {"export20-yaml", {"tools/knobsim/testdata/export20/export.yaml"}, ""},
      {"impossible-evidence", {"tools/knobsim/testdata/impossible-evidence/export.yaml"},
       "tools/knobsim/testdata/impossible-evidence/prom"},
      {"check-export", {"tools/knobsim/testdata/check-export/export.json"}, ""},
      {"check-export-clean", {"tools/knobsim/testdata/check-export/export-clean.json"}, ""},
      {"manifests",
       {"tools/knobsim/testdata/small-cluster.yaml", "tools/knobsim/testdata/small-pods.yaml"},
       ""},
  };
  for (const Fixture& f : fixtures) {
    std::string args;
    for (const char* k : f.kube) args += " --kube " + QuotedSourcePath(k);
    if (*f.prom_dir != '\0') args += PromArgs(SourcePath(f.prom_dir));
    ImportsAndReadsBack(args, f.name);
  }
}

TEST_CASE("generated exports of every profile and several seeds import and read back") {
  struct Generated {
    const char* name;
    const char* flags;
  };
  const Generated kinds[] = {
      {"default-seed1", "--seed 1"},
      {"default-seed7", "--seed 7"},
      {"backtest-seed3", "--seed 3 --profile backtest"},
      {"no-metrics-seed5", "--seed 5 --no-metrics"},
      {"yaml-seed9", "--seed 9 --format yaml --no-secrets"},
  };
  for (const Generated& g : kinds) {
    const std::string dir = TempPath(std::string("gen-") + g.name);
    std::filesystem::remove_all(dir);
    const std::string cmd = Quoted(KNOBSIM_GEN_EXPORT_BINARY) + " --nodes 7 --pods 21 --days 1 " +
                            g.flags + " -o " + Quoted(dir) + " >/dev/null";
    REQUIRE(std::system(cmd.c_str()) == 0);
    const std::string kube = std::filesystem::exists(dir + "/export.json") ? "/export.json"
                                                                           : "/export.yaml";
    ImportsAndReadsBack("--kube " + Quoted(dir + kube) + PromArgs(dir + "/prom"), g.name);
    std::filesystem::remove_all(dir);
  }
}

TEST_CASE("a namespace that is no DNS label is refused by the export reader, never written") {
  const std::string export_path = TempPath("newline-namespace.json");
  std::ofstream(export_path) << R"({"kind": "List", "items": [
{"kind": "Pod", "metadata": {"name": "p", "namespace": "team\n- name: injected"},
 "spec": {"containers": [{"name": "c"}]}}]})";
  const std::string scenario = TempPath("newline-namespace.yaml");
  const Outcome o = Run("import --kube " + Quoted(export_path) + " -o " + Quoted(scenario));
  CHECK(o.exit_code == 2);
  CHECK(o.err.find(export_path + ":2:") != std::string::npos);
  CHECK(o.err.find("metadata.namespace") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(scenario));
  std::filesystem::remove(export_path);
}

}  // namespace
}  // namespace knobsim::e2e
