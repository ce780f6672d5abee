// Progress bar rendering. (Debian 12 packages no C++ progress-bar library; this is 60 lines.)
#include "progress_bar.hpp"

#include <unistd.h>

#include <cstdio>

namespace bovw::cli {

namespace {

std::string clock(double seconds) {
  const long s = static_cast<long>(seconds + 0.5);
  char text[32];
  std::snprintf(text, sizeof(text), "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
  return text;
}

}  // namespace

ProgressBar::ProgressBar(std::string label, bool quiet)
    : label_(std::move(label)), enabled_(!quiet && ::isatty(STDERR_FILENO)) {}

ProgressBar::~ProgressBar() { finish(); }

void ProgressBar::update(const PipelineProgress& p) {
  if (!enabled_ || p.total == 0) return;
  const auto now = std::chrono::steady_clock::now();
  if (p.done < p.total && now - last_draw_ < std::chrono::milliseconds(100)) return;  // ~10 redraws/s
  last_draw_ = now;
  constexpr int kWidth = 30;
  const double fraction = static_cast<double>(p.done) / static_cast<double>(p.total);
  const int filled = static_cast<int>(fraction * kWidth);
  const double rate = p.seconds > 0 ? static_cast<double>(p.done) / p.seconds : 0;
  const double left = rate > 0 ? static_cast<double>(p.total - p.done) / rate : 0;
  std::string bar(static_cast<std::size_t>(filled), '=');
  if (filled < kWidth) bar += '>' + std::string(static_cast<std::size_t>(kWidth - filled - 1), ' ');
  std::fprintf(stderr, "\r%s [%s] %zu/%zu images  %.1f img/s  left %s%s\033[K", label_.c_str(), bar.c_str(),
               p.done, p.total, rate, clock(left).c_str(),
               p.failed ? (" (" + std::to_string(p.failed) + " failed)").c_str() : "");
  std::fflush(stderr);
  drawn_ = true;
}

void ProgressBar::finish() {
  if (drawn_) std::fputc('\n', stderr);
  drawn_ = false;
}

}  // namespace bovw::cli
