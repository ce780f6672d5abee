// Batches posted to the root as they finish; the root hands each on as it comes, tagged with its rank.
#include "pipeline/result_stream.hpp"

#include "pipeline/histogram_exchange.hpp"

#include <bovw/error.hpp>

#include <chrono>
#include <limits>

namespace bovw::detail {

namespace {
constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();
}  // namespace

ResultStream::ResultStream(Communicator& ranks, const std::vector<std::string>& paths, int root, Consumer consume)
    : ranks_(ranks),
      root_(root),
      consume_(std::move(consume)),
      first_(static_cast<std::size_t>(ranks.size()), kNone),
      last_(static_cast<std::size_t>(ranks.size()), 0),
      ended_(static_cast<std::size_t>(ranks.size()), false) {
  if (ranks.rank() != root) return;
  for (std::size_t i = 0; i < paths.size(); ++i) position_.emplace(paths[i], i);
}

void ResultStream::add(ImageHistograms batch) {
  if (batch.names.empty()) return;
  if (ranks_.rank() != root_) {
    Bytes bytes = encodeImageHistograms(batch);
    bytes_ += static_cast<std::int64_t>(bytes.size());
    ranks_.post(std::move(bytes), root_);
    return;
  }
  hand(root_, std::move(batch));
  takeArrived();  // taking it lets the others' sends complete while this rank works
}

void ResultStream::finish() {
  if (ranks_.rank() != root_) {
    ranks_.post(Bytes{}, root_);  // the end: an encoded batch is never empty
    ranks_.completePosts();
    return;
  }
  ended_[static_cast<std::size_t>(root_)] = true;
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
  }
  if (failure_) std::rethrow_exception(failure_);
}

void ResultStream::takeArrived() {
  for (int r = 0; r < ranks_.size(); ++r) {
    if (r == root_) continue;
    while (!ended_[static_cast<std::size_t>(r)]) {
      std::optional<Bytes> message = ranks_.next(r, false);
      if (!message) break;
      take(r, std::move(*message));
    }
  }
}

void ResultStream::take(int source, Bytes message) {
  bytes_ += static_cast<std::int64_t>(message.size());
  if (message.empty()) {
    ended_[static_cast<std::size_t>(source)] = true;
    return;
  }
  if (failure_) return;  // drained, no longer used
  try {
    hand(source, decodeImageHistograms(message, "rank " + std::to_string(source)));
  } catch (...) {
    failure_ = std::current_exception();
  }
}

// Checks that the batch's images come after those rank `rank` handed on before (in list order, each
// once), after every image of the ranks before it and before every image of the ranks after it,
// then hands it on.
void ResultStream::hand(int rank, ImageHistograms batch) {
  if (failure_) return;
  try {
    if (ranks_.size() > 1) {
      const auto r = static_cast<std::size_t>(rank);
      std::size_t first = kNone, last = 0;
      for (const std::string& name : batch.names) {
        const auto found = position_.find(name);
        if (found == position_.end())
          throw InvalidInput("'" + name + "': an image result for a file not in the job's list");
        const std::size_t at = found->second;
        if ((first_[r] != kNone && at <= last_[r]) || (first != kNone && at <= last))
          throw InvalidInput("'" + name + "': an image result out of the job's list order, or twice");
        if (first == kNone) first = at;
        last = at;
      }
      for (std::size_t q = 0; q < first_.size(); ++q)
        if (q != r && first_[q] != kNone && (q < r ? first <= last_[q] : last >= first_[q]))
          throw InvalidInput("'" + batch.names.front() + "' .. '" + batch.names.back() +
                             "': image results of rank " + std::to_string(rank) + " among those of rank " +
                             std::to_string(q) + ", out of the job's list order");
      if (first_[r] == kNone) first_[r] = first;
      last_[r] = last;
    }
    consume_(rank, std::move(batch));
  } catch (...) {
    failure_ = std::current_exception();
  }
}

}  // namespace bovw::detail
