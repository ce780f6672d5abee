// The kernel counts a process's start time (/proc/self/stat, field 22) in clock ticks since boot, on
// the clock that CLOCK_BOOTTIME reads (suspended time included).
#include "process_age.hpp"

#include <time.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

namespace bovw::cli {

std::optional<double> secondsSinceProcessStart() {
  std::ifstream file("/proc/self/stat");
  const std::string stat((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  // The command name (field 2) is in parentheses and may hold spaces: count the fields after it.
  const auto name_end = stat.rfind(')');
  const long ticks_per_second = sysconf(_SC_CLK_TCK);
  timespec now{};
  if (name_end == std::string::npos || ticks_per_second <= 0 || clock_gettime(CLOCK_BOOTTIME, &now) != 0)
    return std::nullopt;
  std::istringstream fields(stat.substr(name_end + 1));
  std::string field;
  for (int number = 3; number <= 22; ++number)
    if (!(fields >> field)) return std::nullopt;
  const double started = std::stod(field) / static_cast<double>(ticks_per_second);
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec) - started;
}

}  // namespace bovw::cli
