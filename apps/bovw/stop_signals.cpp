#include "stop_signals.hpp"

#include <bovw/error.hpp>

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace bovw::cli {

namespace {

int stop_pipe[2] = {-1, -1};

extern "C" void onStopSignal(int signal) {
  const int saved = errno;  // a handler must leave errno as it found it
  const unsigned char number = static_cast<unsigned char>(signal);
  [[maybe_unused]] const ssize_t written = ::write(stop_pipe[1], &number, 1);  // async-signal-safe
  errno = saved;
}

void setHandler(int signal, void (*handler)(int)) {
  struct sigaction action {};
  action.sa_handler = handler;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  sigaction(signal, &action, nullptr);
}

}  // namespace

StopSignals::StopSignals() {
  if (::pipe2(stop_pipe, O_CLOEXEC) != 0)
    throw IoError(std::string("cannot make a pipe for stop signals: ") + std::strerror(errno));
  setHandler(SIGTERM, onStopSignal);
  setHandler(SIGINT, onStopSignal);
}

StopSignals::~StopSignals() {
  setHandler(SIGTERM, SIG_DFL);
  setHandler(SIGINT, SIG_DFL);
  ::close(stop_pipe[0]);
  ::close(stop_pipe[1]);
  stop_pipe[0] = stop_pipe[1] = -1;
}

int StopSignals::wait() {
  unsigned char number = 0;
  while (::read(stop_pipe[0], &number, 1) < 0 && errno == EINTR) {
  }
  return number;
}

void StopSignals::wake() {
  const unsigned char none = 0;
  [[maybe_unused]] const ssize_t written = ::write(stop_pipe[1], &none, 1);
}

}  // namespace bovw::cli
