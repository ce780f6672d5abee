// The subcommand table and the error handling that `bovw` and `bovw-mpi` share.
#include "program.hpp"

#include "commands.hpp"

#include <bovw/error.hpp>
#include <bovw/rank_agreement.hpp>
#include <bovw/version.hpp>
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
#include <string>

namespace bovw::cli {

namespace {

Communicator* current_ranks = &singleProcess();
bool failed_on_every_rank = false;
bool distributed_program = false;

// One logger on stderr; in a job of several ranks each line names its rank.
void setUpLogging(const Communicator& group) {
  auto logger = spdlog::stderr_color_mt("bovw");
  const std::string who =
      group.size() > 1 ? "bovw[" + std::to_string(group.rank()) + "/" + std::to_string(group.size()) + "]" : "bovw";
  logger->set_pattern(who + ": %^%l%$: %v");
  spdlog::set_default_logger(logger);
  // Progress and per-iteration reports come from rank 0; the others say only what goes wrong.
  if (group.rank() != 0) spdlog::set_level(spdlog::level::warn);
}

}  // namespace

Communicator& ranks() { return *current_ranks; }

bool distributedProgram() { return distributed_program; }

bool printsResults() { return current_ranks->rank() == 0; }

bool failedOnEveryRank() { return failed_on_every_rank; }

int runProgram(int argc, char** argv, Program program, Communicator& group) {
  current_ranks = &group;
  distributed_program = program == Program::Distributed;
  setUpLogging(group);
#ifdef BOVW_CLI_WITH_FEATURES
  captureDecoderMessages();  // OpenCV's decoder messages go into the image's one error line
#endif
  const bool single = program == Program::Single;
  CLI::App app{single ? "bovw: bag-of-visual-words histograms on CPU and OpenCL devices"
                      : "bovw-mpi: bovw's training, indexing and sharded search over MPI ranks (mpirun -np R "
                        "bovw-mpi ...); each rank uses GPU (its index on its host mod G)"};
  app.set_version_flag("--version", std::string(single ? "bovw " : "bovw-mpi ") + BOVW_VERSION);
  app.require_subcommand(1, 1);
  std::map<CLI::App*, std::function<int()>> runs = {{addTrainCommand(app), runTrainCommand}};
  if (single) {
    runs.emplace(addDevicesCommand(app), runDevicesCommand);
    runs.emplace(addHistogramCommand(app), runHistogramCommand);
    runs.emplace(addDemoCommand(app), runDemoCommand);
  }
#ifdef BOVW_CLI_WITH_FEATURES
  runs.emplace(addIndexCommand(app), runIndexCommand);
  runs.emplace(addSearchCommand(app), runSearchCommand);
  if (single) {
    runs.emplace(addExtractCommand(app), runExtractCommand);
    runs.emplace(addEvaluateCommand(app), runEvaluateCommand);
    runs.emplace(addAddCommand(app), runAddCommand);
    runs.emplace(addRemoveCommand(app), runRemoveCommand);
    runs.emplace(addConvertCommand(app), runConvertCommand);
    runs.emplace(addListCommand(app), runListCommand);
    runs.emplace(addServeCommand(app), runServeCommand);
  }
#endif
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return group.rank() == 0 ? app.exit(e) : 0;
  } catch (const CLI::CallForVersion& e) {
    return group.rank() == 0 ? app.exit(e) : 0;
  } catch (const CLI::ParseError& e) {
    if (group.rank() == 0) app.exit(e);
    return kUsageError;
  }
  for (auto& [command, run] : runs) {
    if (!command->parsed()) continue;
    try {
      const int status = run();
      // What a command prints is output too (search's results): a full disk there is a failure.
      std::cout.flush();
      if (std::fflush(stdout) != 0 || std::ferror(stdout) || !std::cout)
        throw IoError(std::string("cannot write standard output: ") + std::strerror(errno));
      // Every rank ends with the job's status: a failure that one rank reported and returned (rank
      // 0's unreadable query images) then ends every rank normally, not through MPI_Abort.
      if (group.size() > 1 && sumOverRanks(group, status != 0 ? 1 : 0) > 0) {
        failed_on_every_rank = true;
        return status != 0 ? status : kFailure;
      }
      return status;
    } catch (const RanksFailed& e) {
      // The same message on every rank, naming the ranks that failed: said once.
      failed_on_every_rank = true;
      if (group.rank() == 0) spdlog::error("{}: {}", command->get_name(), e.what());
    } catch (const Error& e) {
      spdlog::error("{}: {}", command->get_name(), e.what());
    } catch (const std::exception& e) {
      spdlog::error("{}: unexpected failure: {}", command->get_name(), e.what());
    }
    return kFailure;
  }
  return kUsageError;
}

}  // namespace bovw::cli
