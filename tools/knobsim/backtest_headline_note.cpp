#include "tools/knobsim/backtest_headline_note.h"

#include <CLI/CLI.hpp>

#include "sim/backtest/backtest_headline.h"
#include "sim/io/json_document.h"

namespace knobsim::cli {

void AddBacktestHeadlineOption(CLI::App* cmd, std::string* file) {
  cmd->add_option("--backtest", *file,
                  "A `knobsim backtest --json` document of the export this scenario was imported "
                  "from: its verdicts are printed beside the answer (default: the one kept by "
                  "the last backtest of that export, docs/backtest.md)")
      ->type_name("FILE");
}

Expected<std::string> BacktestHeadlineFor(const Scenario& scenario, const std::string& given,
                                          std::vector<std::string>* notes) {
  if (!given.empty()) {
    Expected<JsonDocument> doc = ReadJsonDocument(given);
    if (!doc) return doc.error();
    Expected<backtest::BacktestHeadline> h = backtest::HeadlineFromJson(*doc);
    if (!h) return h.error();
    if (scenario.evidence.empty())
      return InputError{"", 0, "--backtest",
                        scenario.file +
                            " names no evidence, so no backtest can be said to be of "
                            "it",
                        "a scenario `knobsim import` wrote from an export with metrics has "
                        "`evidence:`"};
    if (h->evidence != scenario.evidence)
      return InputError{"", 0, "--backtest",
                        given + " is a backtest of other evidence (" + h->evidence + ") than " +
                            scenario.file + " was imported from (" + scenario.evidence + ")",
                        "backtest the export the scenario was imported from"};
    return backtest::HeadlineText(*h);
  }
  if (scenario.evidence.empty()) return std::string();
  const std::string store = backtest::HeadlineStoreDir();
  Expected<std::optional<backtest::BacktestHeadline>> found =
      backtest::FindHeadline(store, scenario.evidence);
  if (!found) {
    notes->push_back("warning: the kept backtest does not read, left out: " +
                     found.error().ToString());
    return std::string();
  }
  if (!*found) {
    notes->push_back("note: no backtest of the export this scenario was imported from (" +
                     scenario.evidence +
                     "): `knobsim backtest --kube EXPORT --prom FILES ...` measures how far to "
                     "trust these predictions (docs/backtest.md)");
    return std::string();
  }
  return backtest::HeadlineText(**found);
}

}  // namespace knobsim::cli
