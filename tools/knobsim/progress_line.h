// ProgressLine: the one progress display of every command that can take more than a second
// (runs and replications, plan cells, replays, backtests). On stderr only, so stdout stays the
// answer:
//   - on a terminal (the default): one line rewritten in place after the first second —
//     "knobsim plan: 3/12 cells (25 %), 41 sizes simulated, 0.8 cells/s, ETA 11 s" — and erased
//     when the work ends;
//   - with `--progress` (CI logs, not a terminal): a plain line at each tenth of the work and at
//     most every 30 s, kept;
//   - with `--quiet`, or when stderr is no terminal and `--progress` is not given: nothing.
// Updates arrive one at a time (RunSet and the sweeps call their progress function serially).
#pragma once

#include <chrono>
#include <functional>
#include <string>

namespace CLI {
class App;
}

namespace knobsim::cli {

enum class ProgressMode { kOff, kTerminal, kLog };

// kOff when quiet; kLog when forced (`--progress`); else kTerminal when stderr is a terminal.
ProgressMode ChooseProgressMode(bool quiet, bool forced);

// Registers `--progress` on `cmd`.
void AddProgressOption(CLI::App* cmd, bool* forced);

class ProgressLine {
 public:
  // `label` names the work ("knobsim plan"), `unit` what is counted ("cells", "runs").
  ProgressLine(ProgressMode mode, std::string label, std::string unit);
  ~ProgressLine() { Clear(); }
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  // `done` of `total` units; `detail` is added after the count ("41 sizes simulated").
  void Update(int done, int total, const std::string& detail = "");
  // A callback for the (done, total) progress functions of sim/ (empty when off).
  std::function<void(int, int)> Callback();
  // Erases the terminal line (nothing otherwise).
  void Clear();
  double Elapsed() const;

 private:
  std::string Text(int done, int total, const std::string& detail) const;

  ProgressMode mode_;
  std::string label_, unit_;
  std::chrono::steady_clock::time_point start_;
  bool shown_ = false;
  int logged_tenth_ = 0;
  double logged_at_ = 0;
};

// "3 s", "2 min 5 s", "1 h 4 min": the remaining time as the line says it.
std::string EtaText(double seconds);

}  // namespace knobsim::cli
