// Helpers for end-to-end tests: run the real knobsim binary and read what it wrote.
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

namespace knobsim::e2e {

struct Outcome {
  int exit_code = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

inline std::string SourcePath(const std::string& relative) {
  return std::string(KNOBSIM_SOURCE_DIR) + "/" + relative;
}

// `path` in single quotes for the shell. (Built with append: GCC 12 warns falsely on
// `"'" + std::string` at -O2, PR 105651.)
inline std::string Quoted(const std::string& path) {
  std::string quoted = "'";
  quoted.append(path).append("'");
  return quoted;
}

// A source-tree path quoted for the shell.
inline std::string QuotedSourcePath(const std::string& relative) {
  return Quoted(SourcePath(relative));
}

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TMPDIR");
  return std::string(dir ? dir : "/tmp") + "/knobsim-e2e-" + std::to_string(::getpid()) + "-" +
         name;
}

// Runs `knobsim ARGS` (ARGS already shell-quoted where needed) and captures both streams. What
// knobsim keeps between commands (backtest headlines, docs/backtest.md) goes to a folder beside
// the binary unless the test names one in KNOBSIM_CACHE_DIR: a test never reads or fills the
// user's own ~/.cache.
inline Outcome Run(const std::string& args) {
  const std::string out_path = TempPath("stdout"), err_path = TempPath("stderr");
  const std::string cmd = std::string("KNOBSIM_CACHE_DIR=\"${KNOBSIM_CACHE_DIR:-") +
                          KNOBSIM_BINARY + ".e2e-cache}\" '" + KNOBSIM_BINARY + "' " + args +
                          " >'" + out_path + "' 2>'" + err_path + "'";
  const int status = std::system(cmd.c_str());
  Outcome o;
  o.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  o.out = ReadFile(out_path);
  o.err = ReadFile(err_path);
  std::remove(out_path.c_str());
  std::remove(err_path.c_str());
  return o;
}

// Runs `knobsim run SCENARIO EXTRA --json -` and parses the document.
inline nlohmann::json RunJson(const std::string& scenario, const std::string& extra = "") {
  Outcome o = Run("run " + QuotedSourcePath(scenario) + " " + extra + " --quiet --json -");
  if (o.exit_code != 0 && o.exit_code != 1)
    throw std::runtime_error("knobsim failed (" + std::to_string(o.exit_code) + "): " + o.err);
  return nlohmann::json::parse(o.out);
}

inline const nlohmann::json& Variant(const nlohmann::json& doc, const std::string& name) {
  for (const auto& v : doc.at("variants"))
    if (v.at("name") == name) return v;
  throw std::runtime_error("no variant " + name);
}

inline const nlohmann::json& Workload(const nlohmann::json& variant, const std::string& name) {
  for (const auto& w : variant.at("workloads"))
    if (w.at("name") == name) return w;
  throw std::runtime_error("no workload " + name);
}

}  // namespace knobsim::e2e
