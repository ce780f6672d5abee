// The `bovw` program: subcommands over the bovw library. Exit status: 0 success, 1 failure (one
// line on stderr naming the input and the problem), 2 usage error.
#include "commands.hpp"

#include <bovw/error.hpp>
#ifdef BOVW_CLI_WITH_FEATURES
#include <bovw/image_io.hpp>
#endif

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>
#include <iostream>
#include <map>

namespace {

constexpr int kFailure = 1;
constexpr int kUsageError = 2;

void setUpLogging() {
  auto logger = spdlog::stderr_color_mt("bovw");
  logger->set_pattern("bovw: %^%l%$: %v");
  spdlog::set_default_logger(logger);
}

}  // namespace

int main(int argc, char** argv) {
  setUpLogging();
#ifdef BOVW_CLI_WITH_FEATURES
  bovw::captureDecoderMessages();  // OpenCV's decoder messages go into the image's one error line
#endif
  CLI::App app{"bovw: bag-of-visual-words histograms on CPU and OpenCL devices"};
  app.require_subcommand(1, 1);

  std::map<CLI::App*, std::function<int()>> runs = {
      {bovw::cli::addDevicesCommand(app), bovw::cli::runDevicesCommand},
      {bovw::cli::addHistogramCommand(app), bovw::cli::runHistogramCommand},
      {bovw::cli::addDemoCommand(app), bovw::cli::runDemoCommand},
      {bovw::cli::addTrainCommand(app), bovw::cli::runTrainCommand},
#ifdef BOVW_CLI_WITH_BENCH
      {bovw::cli::addBenchCommand(app), bovw::cli::runBenchCommand},
#endif
#ifdef BOVW_CLI_WITH_FEATURES
      {bovw::cli::addExtractCommand(app), bovw::cli::runExtractCommand},
      {bovw::cli::addIndexCommand(app), bovw::cli::runIndexCommand},
      {bovw::cli::addSearchCommand(app), bovw::cli::runSearchCommand},
      {bovw::cli::addEvaluateCommand(app), bovw::cli::runEvaluateCommand},
#endif
  };

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kUsageError;
  }

  for (auto& [command, run] : runs) {
    if (!command->parsed()) continue;
    try {
      const int status = run();
      // What a command prints is output too (search's results): a full disk there is a failure.
      std::cout.flush();
      if (std::fflush(stdout) != 0 || std::ferror(stdout) || !std::cout)
        throw bovw::IoError(std::string("cannot write standard output: ") + std::strerror(errno));
      return status;
    } catch (const bovw::Error& e) {
      spdlog::error("{}: {}", command->get_name(), e.what());
    } catch (const std::exception& e) {
      spdlog::error("{}: unexpected failure: {}", command->get_name(), e.what());
    }
    return kFailure;
  }
  return kUsageError;
}
