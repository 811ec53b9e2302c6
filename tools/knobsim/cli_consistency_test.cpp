// End-to-end: one set of flags (issue 16). Every subcommand's `--help` is read off the real
// binary, and the flags several commands share must have the same names everywhere: a person
// who learned `-q` on one command, or `-o/--out`, `--json`, `--report`, `--seed`, `--threads`
// on another, finds them under the same spelling on every command that has the idea.
#include <doctest/doctest.h>

#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tools/knobsim/e2e_support.h"

namespace knobsim::e2e {
namespace {

// The subcommands `knobsim --help` lists.
std::vector<std::string> Subcommands() {
  const Outcome o = Run("--help");
  REQUIRE(o.exit_code == 0);
  std::vector<std::string> names;
  std::istringstream lines(o.out);
  std::string line;
  bool in_list = false;
  static const std::regex kEntry(R"(^  ([a-z][a-z-]*)\b.*)");
  while (std::getline(lines, line)) {
    if (line.rfind("Subcommands:", 0) == 0) {
      in_list = true;
      continue;
    }
    std::smatch m;
    if (in_list && std::regex_match(line, m, kEntry)) names.push_back(m[1]);
  }
  return names;
}

// The flags of one subcommand's help: every `-x` and `--name` that opens an option's line.
std::set<std::string> Flags(const std::string& command) {
  const Outcome o = Run(command + " --help");
  REQUIRE_MESSAGE(o.exit_code == 0, command);
  std::set<std::string> flags;
  std::istringstream lines(o.out);
  std::string line;
  static const std::regex kOption(R"(^\s+(-[A-Za-z0-9](?:,|\s|$)|--[a-z][a-z0-9-]*))");
  static const std::regex kName(R"(--?[A-Za-z0-9][a-z0-9-]*)");
  while (std::getline(lines, line)) {
    if (!std::regex_search(line, kOption)) continue;
    // The names are the first word ("-o,--out"); the next is the value or the description.
    std::istringstream words(line);
    std::string word;
    while (words >> word) {
      for (std::sregex_iterator it(word.begin(), word.end(), kName), end; it != end; ++it) {
        flags.insert(it->str());
      }
      if (word.back() != ',') break;  // "-o,--out" is one word; the next word is a value
    }
  }
  return flags;
}

TEST_CASE("shared flags are spelled the same on every subcommand that has them") {
  const std::vector<std::string> commands = Subcommands();
  REQUIRE(commands.size() >= 10);
  std::map<std::string, std::set<std::string>> flags;
  for (const std::string& c : commands) flags[c] = Flags(c);
  for (const std::string& c : commands) {
    CAPTURE(c);
    const std::set<std::string>& f = flags[c];
    auto has = [&](const char* flag) { return f.count(flag) > 0; };
    // One spelling each, short and long together.
    CHECK(has("--quiet") == has("-q"));
    if (has("-o")) CHECK(has("--out"));
    // Nothing writes a file under a different name for the same meaning.
    CHECK_FALSE(has("--output-file"));
    CHECK_FALSE(has("--silent"));
  }
  // Every command that simulates takes the seed; those that run replications in parallel take
  // the threads (an upgrade rehearsal is one run of each order, one after another).
  for (const std::string c : {"run", "whatif", "plan", "upgrade", "backtest"}) {
    CAPTURE(c);
    CHECK(flags[c].count("--seed") == 1);
    CHECK(flags[c].count("--threads") == (c == "upgrade" ? 0 : 1));
  }
  // Every command that writes a results-type document writes it with --json, and its page
  // with --report.
  for (const std::string c : {"run", "whatif", "plan", "upgrade", "backtest"}) {
    CAPTURE(c);
    CHECK(flags[c].count("--json") == 1);
    CHECK(flags[c].count("--report") == 1);
    CHECK(flags[c].count("-q") == 1);
  }
  CHECK(flags["check"].count("--json") == 1);
  CHECK(flags["check"].count("-q") == 1);
  // The pages of a change review: check and diff write theirs with --report too.
  CHECK(flags["check"].count("--report") == 1);
  CHECK(flags["diff"].count("--report") == 1);
  // Commands whose output is one file name it -o/--out.
  for (const std::string c : {"import", "diff", "merge", "report"}) {
    CAPTURE(c);
    CHECK(flags[c].count("-o") == 1);
    CHECK(flags[c].count("--out") == 1);
  }
}

}  // namespace
}  // namespace knobsim::e2e
