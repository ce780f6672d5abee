// A one-line progress bar on stderr for long folder runs: images done, rate, time left. Silent
// when stderr is not a terminal (logs, pipes, CI) or when the user asked for --quiet.
#pragma once

#include <bovw/image_pipeline.hpp>

#include <chrono>
#include <string>

namespace bovw::cli {

class ProgressBar {
 public:
  ProgressBar(std::string label, bool quiet);
  ~ProgressBar();
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  void update(const PipelineProgress& progress);
  void finish();  // ends the line; also done by the destructor

 private:
  std::string label_;
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point last_draw_{};
};

}  // namespace bovw::cli
