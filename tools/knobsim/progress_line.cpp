#include "tools/knobsim/progress_line.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <iostream>

#include <fmt/format.h>

namespace knobsim::cli {

ProgressMode ChooseProgressMode(bool quiet, bool forced) {
  if (quiet) return ProgressMode::kOff;
  if (forced) return ProgressMode::kLog;
  return ::isatty(STDERR_FILENO) == 1 ? ProgressMode::kTerminal : ProgressMode::kOff;
}

void AddProgressOption(CLI::App* cmd, bool* forced) {
  cmd->add_flag("--progress", *forced,
                "Show progress on stderr even when it is no terminal (a plain line at each "
                "tenth of the work, for CI logs); a terminal shows it anyway");
}

ProgressLine::ProgressLine(ProgressMode mode, std::string label, std::string unit)
    : mode_(mode),
      label_(std::move(label)),
      unit_(std::move(unit)),
      start_(std::chrono::steady_clock::now()) {}

double ProgressLine::Elapsed() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

std::string EtaText(double s) {
  if (!(s >= 0) || !std::isfinite(s)) return "?";
  const auto whole = static_cast<long long>(std::ceil(s));
  if (whole < 60) return fmt::format("{} s", whole);
  if (whole < 3600) return fmt::format("{} min {} s", whole / 60, whole % 60);
  return fmt::format("{} h {} min", whole / 3600, whole % 3600 / 60);
}

std::string ProgressLine::Text(int done, int total, const std::string& detail) const {
  const double elapsed = Elapsed();
  std::string text = fmt::format("{}: {}/{} {}", label_, done, total, unit_);
  if (total > 0) text += fmt::format(" ({} %)", 100LL * done / total);
  if (!detail.empty()) text += ", " + detail;
  if (done > 0 && elapsed > 0) {
    const double rate = done / elapsed;
    text += rate >= 1
                ? fmt::format(", {:.1f} {}/s", rate, unit_)
                : fmt::format(", {:.1f} s per {}", 1 / rate, unit_.substr(0, unit_.size() - 1));
    if (done < total) text += ", ETA " + EtaText((total - done) / rate);
  }
  return text + fmt::format(", {} elapsed", EtaText(elapsed));
}

void ProgressLine::Update(int done, int total, const std::string& detail) {
  if (mode_ == ProgressMode::kOff) return;
  const double elapsed = Elapsed();
  if (mode_ == ProgressMode::kTerminal) {
    if (elapsed < 1.0 || done >= total) return;
    std::cerr << "\r\033[K" << Text(done, total, detail) << std::flush;
    shown_ = true;
    return;
  }
  // A log: each tenth once, and at least every 30 s.
  const int tenth = total > 0 ? static_cast<int>(10LL * done / total) : 0;
  if (tenth <= logged_tenth_ && elapsed - logged_at_ < 30 && done < total) return;
  if (done >= total && logged_tenth_ >= 10) return;
  logged_tenth_ = std::max(logged_tenth_, tenth);
  logged_at_ = elapsed;
  std::cerr << Text(done, total, detail) << "\n" << std::flush;
}

std::function<void(int, int)> ProgressLine::Callback() {
  if (mode_ == ProgressMode::kOff) return {};
  return [this](int done, int total) { Update(done, total); };
}

void ProgressLine::Clear() {
  if (shown_) std::cerr << "\r\033[K" << std::flush;
  shown_ = false;
}

}  // namespace knobsim::cli
