// knobsim: what a GPU-sharing knob does to latency, errors and utilization, before anyone turns
// it in production. This file only assembles the subcommands (tools/knobsim/commands.h) and
// turns every failure into a message and an exit status: knobsim never ends in a crash.
#include <CLI/CLI.hpp>

#include <exception>
#include <iostream>

#include "tools/knobsim/commands.h"

int main(int argc, char** argv) {
  using knobsim::cli::kExitBadInput;
  try {
    CLI::App app{
        "knobsim simulates Kubernetes clusters whose GPUs are shared between pods (ACK GPU "
        "sharing with cGPU) and predicts what a placement or sharing knob does to latency, "
        "errors and GPU utilization.",
        "knobsim"};
    app.set_version_flag("--version", std::string("knobsim ") + KNOBSIM_VERSION);
    app.require_subcommand(1);
    app.footer("Exit status: 0 success, 1 a check failed, 2 bad input or usage.");

    int exit_code = knobsim::cli::kExitOk;
    knobsim::cli::AddRunCommand(app, &exit_code);
    knobsim::cli::AddReplayCommand(app, &exit_code);
    knobsim::cli::AddScheduleCommand(app, &exit_code);
    knobsim::cli::AddImportCommand(app, &exit_code);
    knobsim::cli::AddBacktestCommand(app, &exit_code);
    knobsim::cli::AddWhatifCommand(app, &exit_code);
    knobsim::cli::AddPlanCommand(app, &exit_code);
    knobsim::cli::AddMergeCommand(app, &exit_code);
    knobsim::cli::AddReportCommand(app, &exit_code);
    knobsim::cli::AddCheckCommand(app, &exit_code);
    knobsim::cli::AddDiffCommand(app, &exit_code);
    knobsim::cli::AddUpgradeCommand(app, &exit_code);
    knobsim::cli::AddInterferenceCommand(app, &exit_code);

    try {
      app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
      // --help and --version are "errors" with status 0; every real usage error is status 2.
      const int status = app.exit(e);
      return status == 0 ? 0 : kExitBadInput;
    }
    return exit_code;
  } catch (const std::exception& e) {
    std::cerr << "knobsim: " << e.what() << "\n";
    return kExitBadInput;
  } catch (...) {
    std::cerr << "knobsim: unexpected error\n";
    return kExitBadInput;
  }
}
