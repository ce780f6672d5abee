// A readers-writer lock under which a steady stream of readers cannot starve a writer.
#pragma once

#include <mutex>
#include <shared_mutex>

namespace bovw::detail {

// libstdc++'s shared_mutex is a reader-preferring pthread rwlock: while readers overlap without a
// gap (concurrent searches, each holding the lock for its whole scoring), a writer waits for ever
// (seen: no PUT finished in 10 s beside 8 searching clients). Every reader and writer therefore first
// passes a turnstile, which a writer holds while it waits for and holds the exclusive lock: new
// readers queue behind it, readers already inside finish. A thread must not take the read lock again
// while it holds it (a writer waiting in between would deadlock the two).
class WriterFairMutex {
 public:
  std::shared_lock<std::shared_mutex> read() const {
    std::lock_guard<std::mutex> gate(turnstile_);
    return std::shared_lock<std::shared_mutex>(mutex_);
  }

  // Released in reverse order: the exclusive lock, then the turnstile.
  struct WriteLock {
    std::unique_lock<std::mutex> gate;
    std::unique_lock<std::shared_mutex> lock;
  };
  WriteLock write() const {
    WriteLock held{std::unique_lock<std::mutex>(turnstile_), {}};
    held.lock = std::unique_lock<std::shared_mutex>(mutex_);
    return held;
  }

 private:
  mutable std::mutex turnstile_;
  mutable std::shared_mutex mutex_;
};

}  // namespace bovw::detail
