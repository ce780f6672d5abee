// RunTimeline: where a one-shot command's wall time went, step by step, from the process's start
// (`bovw histogram --images --profile`, `bovw search --profile`): the libraries' loading, the
// vocabulary or database, the device's platform, context and kernels, the work and the output, so
// that start-up shows beside the work.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace bovw::cli {

class RunTimeline {
 public:
  RunTimeline();  // at the command's start

  // Ends the step that began at the last mark (or the command's start), naming it (no commas: the
  // summary separates the steps with them).
  void mark(std::string step);

  // Seconds since the last mark (or the command's start): the step in progress so far, for a step
  // whose name carries a breakdown of its own time.
  double sinceLastMark() const;

  // One line: the total since the process started, then each step in order.
  std::string summary() const;

 private:
  std::optional<double> before_command_;  // process start to the command's start (10 ms steps)
  std::chrono::steady_clock::time_point last_;
  std::vector<std::pair<std::string, double>> steps_;
};

}  // namespace bovw::cli
