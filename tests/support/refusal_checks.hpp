// How a reader refuses a file (issue 19): what it threw, whether it waited on a FIFO, and what it
// cost first: the wall time and the growth of the process's peak resident memory, so that a test
// can demand "refused after a few bytes" rather than only "refused". The peak is reset first
// (Linux: writing 5 to /proc/self/clear_refs), so that memory an earlier test used does not hide
// the growth; where that fails, the growth over the earlier peak is measured, which can only
// under-report, and the result says so.
#pragma once

#include <bovw/error.hpp>

#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <fstream>
#include <functional>
#include <future>
#include <string>

namespace bovw::test {

// What a call threw: the exception's kind and message ("none" and "" if it returned).
struct Thrown {
  std::string kind = "none";
  std::string message;
};

inline Thrown thrownBy(const std::function<void()>& call) {
  try {
    call();
  } catch (const IoError& e) {
    return {"IoError", e.what()};
  } catch (const InvalidInput& e) {
    return {"InvalidInput", e.what()};
  } catch (const std::exception& e) {
    return {"other", e.what()};
  }
  return {};
}

// `call` run on another thread: if it has not returned after 5 s (blocked in open(2), waiting for
// a writer), the write end of `fifo` is opened so that it returns, and the test fails.
inline Thrown withoutBlockingOn(const std::string& fifo, const std::function<void()>& call) {
  auto result = std::async(std::launch::async, [&] { return thrownBy(call); });
  if (result.wait_for(std::chrono::seconds(5)) == std::future_status::timeout) {
    ADD_FAILURE() << "the reader blocked on the FIFO '" << fifo << "'";
    const int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
    if (fd >= 0) ::close(fd);
  }
  return result.get();
}

struct ResourceUse {
  double seconds = 0;
  double peak_growth_mb = 0;  // peak resident memory during the call, minus the resident memory before
  bool peak_reset = false;    // false: measured over the earlier peak (could under-report)
};

// "VmHWM" / "VmRSS" of /proc/self/status, in kB; -1 if unknown.
inline std::int64_t statusKb(const std::string& field) {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.compare(0, field.size() + 1, field + ":") == 0) return std::stoll(line.substr(field.size() + 1));
  return -1;
}

// Runs `action` (which handles its own exceptions) and measures it.
template <typename Action>
ResourceUse measureResources(Action&& action) {
  ResourceUse use;
  {
    std::ofstream clear("/proc/self/clear_refs");
    clear << "5";
    clear.flush();
    use.peak_reset = clear.good();
  }
  const std::int64_t before = use.peak_reset ? statusKb("VmRSS") : statusKb("VmHWM");
  const auto start = std::chrono::steady_clock::now();
  action();
  use.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const std::int64_t peak = statusKb("VmHWM");
  if (before >= 0 && peak >= 0) use.peak_growth_mb = static_cast<double>(peak - before) / 1024.0;
  return use;
}

}  // namespace bovw::test
