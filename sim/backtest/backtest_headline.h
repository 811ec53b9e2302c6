// A backtest's headline — which windows it judged and which predictions to trust — kept where
// later commands on the same evidence find it: `knobsim whatif` and `knobsim plan` on a scenario
// that `knobsim import` wrote from an export print how far a backtest of that export says to
// trust them (docs/backtest.md "Found again").
//
// The link is the evidence fingerprint (sim/io/evidence_fingerprint.h): the import writes it as
// the scenario's `evidence:`, the backtest computes it from the same export and metrics. A
// backtest's own train window is part of the metrics, so the backtest and the import of the
// whole window share the fingerprint.
//
// The store is a folder of small JSON records, one per fingerprint (the last backtest wins):
// `KNOBSIM_CACHE_DIR`, else `$XDG_CACHE_HOME/knobsim`, else `$HOME/.cache/knobsim`, each under
// `backtests/`. A record holds no name from the export, only scores, windows and verdicts.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/backtest/backtest.h"
#include "sim/input_error.h"
#include "sim/io/json_document.h"

namespace knobsim::backtest {

struct BacktestHeadline {
  std::string evidence;  // EvidenceFingerprint of what was backtested
  std::string knobsim_version;
  std::string train_from, train_to, test_from, test_to;  // RFC 3339
  double window_s = 0;
  int windows = 0, replications = 0;
  std::vector<Verdict> verdicts;
};

BacktestHeadline HeadlineOf(const BacktestReport& report, std::string knobsim_version);

// A knobsim.backtest/v1 document (`backtest --json`) or a store record: the fields above, each
// checked by the JSON reading rule (sim/io/json_document.h): errors name the file, line and field.
Expected<BacktestHeadline> HeadlineFromJson(const JsonDocument& document);

// "Backtest of this export (tested on FROM .. TO, N windows of 10m, R replications): trust
// utilization (why); do not trust latency (why)" as indented lines.
std::string HeadlineText(const BacktestHeadline& headline);

// The store's folder from the environment (above); empty when none can be named.
std::string HeadlineStoreDir();

// Writes the record for `headline.evidence` into `store_dir`/backtests/ (made when missing).
Status StoreHeadline(const std::string& store_dir, const BacktestHeadline& headline);

// The record for `evidence`, or nothing when no backtest of it was stored. A record that does
// not read is an error naming its file.
Expected<std::optional<BacktestHeadline>> FindHeadline(const std::string& store_dir,
                                                       const std::string& evidence);

}  // namespace knobsim::backtest
