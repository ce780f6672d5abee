#include "run_timeline.hpp"

#include "process_age.hpp"

#include <cstdio>

namespace bovw::cli {

RunTimeline::RunTimeline() : before_command_(secondsSinceProcessStart()), last_(std::chrono::steady_clock::now()) {}

void RunTimeline::mark(std::string step) {
  const auto now = std::chrono::steady_clock::now();
  steps_.emplace_back(std::move(step), std::chrono::duration<double>(now - last_).count());
  last_ = now;
}

double RunTimeline::sinceLastMark() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - last_).count();
}

std::string RunTimeline::summary() const {
  double total = before_command_.value_or(0);
  for (const auto& step : steps_) total += step.second;
  char number[32];
  std::snprintf(number, sizeof number, "%.3f", total);
  std::string text = std::string(number) + " s since the process started:";
  const auto add = [&](const std::string& what, double seconds) {
    std::snprintf(number, sizeof number, "%.3f", seconds);
    text += std::string(text.back() == ':' ? " " : ", ") + number + " s " + what;
  };
  if (before_command_) add("before the command (loading the libraries; options)", *before_command_);
  for (const auto& step : steps_) add(step.first, step.second);
  return text;
}

}  // namespace bovw::cli
