// How many requests do real work at once (search, add, remove), and how many may wait for a turn:
// beyond both, a request is refused at once (503) instead of queueing without bound.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <optional>

namespace bovw::serve {

class Admission {
 public:
  // `working` requests at once (at least 1); `waiting` more may wait for a turn.
  Admission(std::size_t working, std::size_t waiting);

  // A turn of work for as long as the ticket lives.
  class Ticket {
   public:
    explicit Ticket(Admission& admission) : admission_(&admission) {}
    Ticket(Ticket&& other) noexcept : admission_(other.admission_) { other.admission_ = nullptr; }
    Ticket(const Ticket&) = delete;
    Ticket& operator=(const Ticket&) = delete;
    Ticket& operator=(Ticket&&) = delete;
    ~Ticket();

   private:
    Admission* admission_;
  };

  // Waits for a turn; nothing if `waiting` requests wait already (the queue is full).
  std::optional<Ticket> enter();
  std::size_t waiting() const;  // requests waiting for a turn now: the queue's depth
  std::size_t working() const;  // requests holding a turn now
  std::size_t capacity() const { return max_working_; }  // the most that hold a turn at once

 private:
  void leave();

  const std::size_t max_working_, max_waiting_;
  mutable std::mutex mutex_;
  std::condition_variable turn_;
  std::size_t working_ = 0, waiting_ = 0;
};

}  // namespace bovw::serve
