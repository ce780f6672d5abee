// Each rank's part of a distributed index added on a thread of its own, the parts appended at the end.
#include "search/index_parts.hpp"

namespace bovw::detail {

IndexParts::IndexParts(std::vector<ImageDatabase> parts, AddImage add)
    : parts_(std::move(parts)), add_(std::move(add)), thread_([this] { run(); }) {}

IndexParts::~IndexParts() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.clear();  // unfinished: what is not added yet is not wanted
    done_ = true;
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void IndexParts::take(std::size_t part, ImageHistograms batch) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.emplace_back(part, std::move(batch));
  }
  changed_.notify_all();
}

void IndexParts::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    changed_.wait(lock, [&] { return done_ || !queue_.empty(); });
    if (queue_.empty()) return;  // done, and everything added
    auto [part, batch] = std::move(queue_.front());
    queue_.pop_front();
    if (failure_) continue;
    lock.unlock();
    try {
      for (std::size_t i = 0; i < batch.names.size(); ++i) add_(parts_[part], batch, i);
    } catch (...) {
      lock.lock();
      failure_ = std::current_exception();
      continue;
    }
    lock.lock();
  }
}

ImageDatabase IndexParts::finish() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    done_ = true;
  }
  changed_.notify_all();
  thread_.join();
  if (failure_) std::rethrow_exception(failure_);
  ImageDatabase whole = std::move(parts_.front());
  for (std::size_t part = 1; part < parts_.size(); ++part) whole.append(std::move(parts_[part]));
  return whole;
}

}  // namespace bovw::detail
