#include "malloc_huge_pages.hpp"

#include <spdlog/spdlog.h>

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace bovw::cli {

namespace {

constexpr const char* kTunable = "glibc.malloc.hugetlb";
// Set in the restarted process: where the C library drops GLIBC_TUNABLES (a set-user-ID program),
// the restart must not repeat.
constexpr const char* kRestarted = "BOVW_MALLOC_HUGE_PAGES_RESTARTED";

// The arguments this process was started with, as the kernel keeps them.
std::vector<std::string> commandLine() {
  std::ifstream file("/proc/self/cmdline", std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  std::vector<std::string> arguments;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t end = text.find('\0', at);
    arguments.push_back(text.substr(at, end - at));
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return arguments;
}

}  // namespace

void restartWithMallocHugePages() {
#if defined(__GLIBC__) && __GLIBC_PREREQ(2, 35)
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  if (std::getenv(kRestarted) != nullptr || (tunables != nullptr && std::strstr(tunables, kTunable) != nullptr))
    return;
  std::vector<std::string> arguments = commandLine();
  if (arguments.empty()) return;  // no /proc: go on as it is
  std::vector<char*> argv;
  for (auto& argument : arguments) argv.push_back(argument.data());
  argv.push_back(nullptr);
  const std::string before = tunables != nullptr ? tunables : "";
  const std::string value = (before.empty() ? "" : before + ":") + kTunable + "=1";
  if (setenv("GLIBC_TUNABLES", value.c_str(), 1) != 0 || setenv(kRestarted, "1", 1) != 0) return;
  std::fflush(nullptr);
  ::execv("/proc/self/exe", argv.data());
  const int error = errno;  // still here: the restart failed, and this process goes on as it was
  if (tunables != nullptr)
    setenv("GLIBC_TUNABLES", before.c_str(), 1);
  else
    unsetenv("GLIBC_TUNABLES");
  unsetenv(kRestarted);
  spdlog::debug("malloc stays in small pages: restarting with {}=1 failed: {}", kTunable, std::strerror(error));
#endif
}

}  // namespace bovw::cli
