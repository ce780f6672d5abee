#include "serve/admission.hpp"

#include <algorithm>

namespace bovw::serve {

Admission::Admission(std::size_t working, std::size_t waiting)
    : max_working_(std::max<std::size_t>(working, 1)), max_waiting_(waiting) {}

Admission::Ticket::~Ticket() {
  if (admission_) admission_->leave();
}

std::optional<Admission::Ticket> Admission::enter() {
  std::unique_lock<std::mutex> lock(mutex_);
  if (working_ < max_working_) {
    ++working_;
    return Ticket(*this);
  }
  if (waiting_ >= max_waiting_) return std::nullopt;
  ++waiting_;
  turn_.wait(lock, [&] { return working_ < max_working_; });
  --waiting_;
  ++working_;
  return Ticket(*this);
}

void Admission::leave() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    --working_;
  }
  turn_.notify_one();
}

std::size_t Admission::waiting() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return waiting_;
}

std::size_t Admission::working() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return working_;
}

}  // namespace bovw::serve
