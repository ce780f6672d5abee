// SIGTERM and SIGINT as a request to stop, for a long-running command (bovw serve): a handler, in
// whichever thread the signal reaches (threads that libraries started before the command ran
// included), writes the signal's number into a pipe, and one thread waits for it there.
#pragma once

namespace bovw::cli {

class StopSignals {
 public:
  StopSignals();   // installs the handlers; throws IoError if the pipe cannot be made
  ~StopSignals();  // restores the default actions
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  // Blocks until SIGTERM or SIGINT arrives (returns its number) or wake() is called (returns 0).
  int wait();
  void wake();
};

}  // namespace bovw::cli
