// The subcommands of the `bovw` program. Each adds itself to the CLI11 app (options, --help) and
// runs after parsing; a run returns the exit status (0 success, 1 failure) and lets bovw::Error
// propagate to main, which prints it as one line naming the input. A run that writes files checks
// them first (checkOutputs), before any work.
#pragma once

#include "output_checks.hpp"

#include <CLI/CLI.hpp>

namespace bovw::cli {

CLI::App* addDevicesCommand(CLI::App& app);
int runDevicesCommand();

CLI::App* addHistogramCommand(CLI::App& app);
int runHistogramCommand();

CLI::App* addDemoCommand(CLI::App& app);
int runDemoCommand();

CLI::App* addExtractCommand(CLI::App& app);
int runExtractCommand();

CLI::App* addTrainCommand(CLI::App& app);
int runTrainCommand();

CLI::App* addIndexCommand(CLI::App& app);
int runIndexCommand();

CLI::App* addSearchCommand(CLI::App& app);
int runSearchCommand();

CLI::App* addAddCommand(CLI::App& app);
int runAddCommand();

CLI::App* addRemoveCommand(CLI::App& app);
int runRemoveCommand();

CLI::App* addConvertCommand(CLI::App& app);
int runConvertCommand();

CLI::App* addListCommand(CLI::App& app);
int runListCommand();

CLI::App* addServeCommand(CLI::App& app);
int runServeCommand();

CLI::App* addEvaluateCommand(CLI::App& app);
int runEvaluateCommand();

}  // namespace bovw::cli
