// knobsim-gen-export: writes a synthetic ACK cluster export, its Prometheus metrics and the
// ground truth behind them (tools/gen-export/README.md).
//
//   knobsim-gen-export --nodes 1000 --pods 10000 --no-metrics -o /tmp/big
//   knobsim-gen-export --nodes 20 --pods 60 --rate-step 300 -o tools/knobsim/testdata/export20
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <exception>
#include <string>

#include "tools/gen-export/export_generator.h"

namespace {

using knobsim::gen_export::ExportFormat;

std::string Size(uint64_t bytes) {
  if (bytes >= 10 * 1024 * 1024) return fmt::format("{:.1f} MB", bytes / 1048576.0);
  if (bytes >= 10 * 1024) return fmt::format("{:.0f} kB", bytes / 1024.0);
  return fmt::format("{} B", bytes);
}

// The whole text as an unsigned 64-bit number; CLI11 would wrap "-3" around to 2^64 - 3.
bool ParseSeed(const std::string& text, uint64_t& seed) {
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, seed);
  return !text.empty() && ec == std::errc() && ptr == end;
}

constexpr int kExitWriteFailed = 1;
constexpr int kExitBadInput = 2;

int Run(int argc, char** argv) {
  namespace gen = knobsim::gen_export;
  gen::GeneratorOptions o;
  std::string dir = "export";
  std::string format = "both";
  std::string seed = std::to_string(o.seed);
  CLI::App app{
      "Writes a synthetic ACK GPU cluster as `kubectl get ... -o json/yaml`, Prometheus "
      "query_range files and truth.json (what the metrics were made from)."};
  app.add_option("-o,--out", dir, "output directory (created when missing)")->capture_default_str();
  app.add_option("--nodes", o.nodes, "nodes over the five pools")->capture_default_str();
  app.add_option("--pods", o.pods, "pods to aim for (workloads x replicas)")->capture_default_str();
  app.add_option("--seed", seed, "random seed, 0 to 2^64-1; same seed, same bytes")
      ->capture_default_str();
  app.add_option("--days", o.days, "days of ground truth ending at the export")
      ->capture_default_str();
  app.add_option("--step", o.step_s, "seconds between truth samples; divides a day")
      ->capture_default_str();
  app.add_option("--start", o.start_unix, "Unix time the window starts (UTC)")
      ->capture_default_str();
  app.add_option("--format", format, "export.json, export.yaml or both")
      ->check(CLI::IsMember({"json", "yaml", "both"}))
      ->capture_default_str();
  app.add_flag("--metrics,!--no-metrics", o.with_metrics, "write prom/*.json (default: on)");
  app.add_option("--metrics-step", o.metrics_step_s,
                 "seconds between DCGM samples (0 = --step); a multiple of --step")
      ->capture_default_str();
  app.add_option("--rate-step", o.rate_step_s,
                 "seconds between request-rate samples (0 = --metrics-step)")
      ->capture_default_str();
  app.add_option("--metrics-days", o.metrics_days,
                 "days of metrics, the last of the window (0 = --days)")
      ->capture_default_str();
  app.add_flag("--process-metric,!--no-process-metric", o.process_metric,
               "DCGM_CUSTOM_PROCESS_MEM_USED on the A10 share pool (default: on)");
  app.add_flag("--secrets,!--no-secrets", o.planted_secrets,
               "plant fake secrets (API key, JWT, password, token) for privacy tests "
               "(default: on)");
  app.add_option("--busy-noise", o.busy_noise, "uniform +/- noise on GPU utilization (0..0.5)")
      ->capture_default_str();
  std::string profile = "default";
  app.add_option("--profile", profile,
                 "backtest: --request-truth --cpu-router --idle-floor 0.03 --backtest-split "
                 "0.25 unless given")
      ->check(CLI::IsMember({"default", "backtest"}))
      ->capture_default_str();
  CLI::Option* request_truth =
      app.add_flag("--request-truth,!--no-request-truth", o.request_truth,
                   "exact FIFO request truth (bursty arrivals, gamma service, latency histogram) "
                   "for GPU pods alone on their cards (default: off)");
  std::string in_step = "iid";
  app.add_option("--arrivals-in-step", in_step,
                 "request truth: times inside a step, iid uniform or stratified (knobsim's "
                 "counts rule)")
      ->check(CLI::IsMember({"iid", "stratified"}))
      ->capture_default_str();
  CLI::Option* idle_floor =
      app.add_option("--idle-floor", o.idle_floor,
                     "utilization floor of a card with a served model, drawn in [0.5, 1] x this "
                     "per card (0..0.2)")
          ->capture_default_str();
  app.add_flag("--gpu-profiles,!--no-gpu-profiles", o.gpu_profiles,
               "DCGM profiling counters (SM_ACTIVE, SM_OCCUPANCY, DRAM_ACTIVE, "
               "PIPE_TENSOR_ACTIVE, GR_ENGINE_ACTIVE) from a profile per GPU workload "
               "(default: off)");
  CLI::Option* cpu_router =
      app.add_flag("--cpu-router,!--no-cpu-router", o.cpu_router,
                   "a CPU-only llm-router with a request rate (default: off)");
  CLI::Option* split =
      app.add_option("--backtest-split", o.backtest_split,
                     "the last fraction of the metrics window is the test window (0 = none)")
          ->capture_default_str();
  app.footer("Exit status: 0 success, 1 a file could not be written, 2 bad input or usage.");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help is an "error" with status 0; every real usage error is status 2.
    return app.exit(e) == 0 ? 0 : kExitBadInput;
  }
  if (profile == "backtest") {  // the profile's values, for the flags not given
    if (request_truth->count() == 0) o.request_truth = true;
    if (cpu_router->count() == 0) o.cpu_router = true;
    if (idle_floor->count() == 0) o.idle_floor = 0.03;
    if (split->count() == 0) o.backtest_split = 0.25;
  }
  o.arrivals_in_step =
      in_step == "stratified" ? gen::ArrivalsInStep::kStratified : gen::ArrivalsInStep::kIid;
  if (!ParseSeed(seed, o.seed)) {
    fmt::print(stderr, "knobsim-gen-export: --seed: \"{}\" is not a number from 0 to 2^64-1\n",
               seed);
    return kExitBadInput;
  }

  const auto started = std::chrono::steady_clock::now();
  knobsim::Expected<gen::GeneratedCluster> cluster = gen::Generate(o);
  if (!cluster) {
    fmt::print(stderr, "knobsim-gen-export: {}: {}\n", cluster.error().path,
               cluster.error().message);
    return kExitBadInput;
  }
  const ExportFormat which = format == "json"   ? ExportFormat::kJson
                             : format == "yaml" ? ExportFormat::kYaml
                                                : ExportFormat::kBoth;
  knobsim::Expected<std::vector<gen::WrittenFile>> written = gen::WriteExport(*cluster, dir, which);
  if (!written) {
    fmt::print(stderr, "knobsim-gen-export: {}: {}\n", written.error().file,
               written.error().message);
    return kExitWriteFailed;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  int bound = 0;
  for (const gen::TruthPod& pod : cluster->truth.pods) bound += pod.node.empty() ? 0 : 1;
  fmt::print("{} nodes, {} cards, {} pods ({} Pending), {} workloads in {:.2f} s\n",
             cluster->nodes.size(), cluster->truth.cards.size(), cluster->truth.pods.size(),
             cluster->truth.pods.size() - bound, cluster->truth.workloads.size(), seconds);
  for (const gen::WrittenFile& f : *written) fmt::print("  {:<60} {:>10}\n", f.path, Size(f.bytes));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // Nothing ends in a crash: an exception (out of memory, a filesystem error) is a message.
  try {
    return Run(argc, argv);
  } catch (const std::exception& e) {
    fmt::print(stderr, "knobsim-gen-export: {}\n", e.what());
  } catch (...) {
    fmt::print(stderr, "knobsim-gen-export: unexpected error\n");
  }
  return kExitBadInput;
}
