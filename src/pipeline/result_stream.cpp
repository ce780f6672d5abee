// Batches posted to the root as they finish; the root hands them on rank by rank, in list order.
#include "pipeline/result_stream.hpp"

#include "pipeline/histogram_exchange.hpp"

#include <bovw/error.hpp>

#include <chrono>

namespace bovw::detail {

ResultStream::ResultStream(Communicator& ranks, const std::vector<std::string>& paths, int root, Consumer consume)
    : ranks_(ranks),
      root_(root),
      consume_(std::move(consume)),
      waiting_(static_cast<std::size_t>(ranks.size())),
      ended_(static_cast<std::size_t>(ranks.size()), false) {
  if (ranks.rank() != root) return;
  for (std::size_t i = 0; i < paths.size(); ++i) position_.emplace(paths[i], i);
}

void ResultStream::add(const ImageHistograms& batch) {
  if (batch.names.empty()) return;
  if (ranks_.rank() != root_) {
    Bytes bytes = encodeImageHistograms(batch);
    bytes_ += static_cast<std::int64_t>(bytes.size());
    ranks_.post(std::move(bytes), root_);
    return;
  }
  if (turn_ == root_ && !failure_) hand(batch);
  else waiting_[static_cast<std::size_t>(root_)].push_back(batch);
  // Whatever the others have sent so far: taking it lets their sends complete while this rank works.
  for (int r = 0; r < ranks_.size(); ++r) {
    if (r == root_) continue;
    while (!ended_[static_cast<std::size_t>(r)]) {
      std::optional<Bytes> message = ranks_.next(r, false);
      if (!message) break;
      take(r, std::move(*message));
    }
  }
  consumeTurns();
}

void ResultStream::finish() {
  if (ranks_.rank() != root_) {
    ranks_.post(Bytes{}, root_);  // the end: an encoded batch is never empty
    ranks_.completePosts();
    return;
  }
  ended_[static_cast<std::size_t>(root_)] = true;
  // In rank order: the turn's rank first, so that its batches are handed on while later ranks'
  // messages wait in MPI (their senders wait in completePosts meanwhile).
  for (int r = 0; r < ranks_.size(); ++r) {
    while (!ended_[static_cast<std::size_t>(r)]) {
      std::optional<Bytes> message = ranks_.next(r, false);
      if (!message) {
        const auto start = std::chrono::steady_clock::now();
        message = ranks_.next(r, true);
        waited_s_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      }
      take(r, std::move(*message));
    }
    consumeTurns();
  }
  if (failure_) std::rethrow_exception(failure_);
}

void ResultStream::take(int source, Bytes message) {
  bytes_ += static_cast<std::int64_t>(message.size());
  if (message.empty()) {
    ended_[static_cast<std::size_t>(source)] = true;
    return;
  }
  if (failure_) return;  // drained, no longer used
  try {
    waiting_[static_cast<std::size_t>(source)].push_back(
        decodeImageHistograms(message, "rank " + std::to_string(source)));
  } catch (...) {
    failure_ = std::current_exception();
  }
}

// Hands on the batches of the rank whose turn it is, and moves the turn on past every rank whose
// stream has ended and been handed on.
void ResultStream::consumeTurns() {
  while (turn_ < ranks_.size()) {
    std::deque<ImageHistograms>& queue = waiting_[static_cast<std::size_t>(turn_)];
    while (!queue.empty()) {
      if (!failure_) hand(queue.front());
      queue.pop_front();
    }
    if (!ended_[static_cast<std::size_t>(turn_)]) return;
    ++turn_;
  }
}

void ResultStream::hand(const ImageHistograms& batch) {
  try {
    if (ranks_.size() > 1)
      for (const std::string& name : batch.names) {
        const auto found = position_.find(name);
        if (found == position_.end())
          throw InvalidInput("'" + name + "': an image result for a file not in the job's list");
        if (found->second < next_position_)
          throw InvalidInput("'" + name + "': an image result out of the job's list order, or twice");
        next_position_ = found->second + 1;
      }
    consume_(batch);
  } catch (...) {
    failure_ = std::current_exception();
  }
}

}  // namespace bovw::detail
