// Runs the calls of concurrent threads in batches (dynamic batching): a thread that finds no batch
// running becomes the leader, runs every call waiting (up to a limit) as one batch, hands each caller
// its result and lets the next waiting thread lead. There is no thread or timer of its own: a lone
// call runs at once, and a batch grows only from the calls that arrive while the one before runs, so
// batching adds no wait when the server is idle and fills device batches when it is busy.
//
// `bovw serve` batches the features of concurrent searches and adds this way, so that SURF on a GPU
// runs one launch sequence for many queries (ImageSearch::words of several images).
#pragma once

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <vector>

namespace bovw::serve {

template <typename In, typename Out>
class DynamicBatcher {
 public:
  // Runs one batch: one result per input, in their order.
  using RunBatch = std::function<std::vector<Out>(const std::vector<In>&)>;
  // An input's weight (pixels, bytes) against `max_weight`: a batch takes calls while its weight
  // stays within it (always at least one call, however heavy).
  using Weight = std::function<std::size_t(const In&)>;
  // Told the size of every batch run (for metrics).
  using Observe = std::function<void(std::size_t calls)>;

  DynamicBatcher(RunBatch run, std::size_t max_calls, Weight weight, std::size_t max_weight, Observe observe = {})
      : run_(std::move(run)),
        max_calls_(std::max<std::size_t>(max_calls, 1)),
        weight_(std::move(weight)),
        max_weight_(max_weight),
        observe_(std::move(observe)) {}

  // The result of `input`, computed in a batch with the calls of other threads. Rethrows the error
  // of this call's input: a batch that throws is run again one call at a time, so that one bad
  // input fails only its own call.
  Out call(In input) {
    Call mine(std::move(input));
    std::unique_lock<std::mutex> lock(mutex_);
    waiting_.push_back(&mine);
    while (!mine.done) {
      if (running_) {
        finished_.wait(lock);
        continue;
      }
      running_ = true;
      std::vector<Call*> batch = takeBatch();
      lock.unlock();
      runBatch(batch);
      lock.lock();
      for (Call* call : batch) call->done = true;
      running_ = false;
      finished_.notify_all();
    }
    if (mine.error) std::rethrow_exception(mine.error);
    return std::move(*mine.result);
  }

 private:
  struct Call {
    explicit Call(In in) : input(std::move(in)) {}
    In input;
    std::optional<Out> result;
    std::exception_ptr error;
    bool done = false;
  };

  // The oldest waiting calls, within the limits. Under mutex_.
  std::vector<Call*> takeBatch() {
    std::vector<Call*> batch;
    std::size_t weight = 0;
    while (!waiting_.empty() && batch.size() < max_calls_) {
      const std::size_t next = weight_ ? weight_(waiting_.front()->input) : 0;
      if (!batch.empty() && weight + next > max_weight_) break;
      weight += next;
      batch.push_back(waiting_.front());
      waiting_.pop_front();
    }
    return batch;
  }

  void runBatch(const std::vector<Call*>& batch) {
    if (observe_) observe_(batch.size());
    try {
      std::vector<In> inputs;
      inputs.reserve(batch.size());
      for (const Call* call : batch) inputs.push_back(call->input);
      std::vector<Out> results = run_(inputs);
      if (results.size() != batch.size()) throw std::logic_error("DynamicBatcher: one result per input");
      for (std::size_t i = 0; i < batch.size(); ++i) batch[i]->result = std::move(results[i]);
    } catch (...) {
      if (batch.size() == 1) {
        batch.front()->error = std::current_exception();
        return;
      }
      for (Call* call : batch) runBatch({call});
    }
  }

  const RunBatch run_;
  const std::size_t max_calls_;
  const Weight weight_;
  const std::size_t max_weight_;
  const Observe observe_;
  std::mutex mutex_;
  std::condition_variable finished_;
  std::deque<Call*> waiting_;  // calls no batch has taken, oldest first
  bool running_ = false;       // a leader runs a batch
};

}  // namespace bovw::serve
