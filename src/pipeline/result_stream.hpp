// The images' results of a distributed job streamed to one rank while the ranks still work, in
// place of one gather at the end: every rank posts each finished batch at once (nonblocking,
// Communicator::post), and the receiving rank takes its own batches as they come, collects what the
// others sent whenever it looks (between its own batches), and hands everything on in the job's
// list order: rank 0's part, then rank 1's, and so on, as gatherImageHistograms would have merged
// them (the parts of a job are contiguous and dealt in rank order, src/distributed/work_split.hpp).
#pragma once

#include <bovw/communicator.hpp>
#include <bovw/image_pipeline.hpp>

#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

namespace bovw::detail {

class ResultStream {
 public:
  using Consumer = std::function<void(const ImageHistograms& batch)>;

  // `consume` runs on `root` only, on the calling thread, for each batch in list order (`paths`,
  // the job's list). Rank r's part must follow rank r-1's in the list: an image out of that order,
  // or twice, fails the stream (InvalidInput) where the ranks then agree on the failure.
  ResultStream(Communicator& ranks, const std::vector<std::string>& paths, int root, Consumer consume);

  // This rank's next finished batch, in list order. Elsewhere than on the root it is posted to the
  // root; on the root it is handed on at once while it is the root's turn, and the root then takes
  // whatever the other ranks have sent so far, so that their sends can go on.
  void add(const ImageHistograms& batch);
  // This rank has added all it will add, its work done or failed: the other ranks post the end of
  // their stream and wait until their messages have left; the root takes every other rank's
  // batches up to that end and hands them on, in rank order. Never throws before the stream is
  // drained (no rank is left sending); then throws what consuming a batch threw, if anything.
  void finish();

  // Bytes this rank posted (not the root) or received (the root), for --profile.
  std::int64_t bytes() const { return bytes_; }
  // Seconds finish() waited on the root for batches that had not arrived yet.
  double waitedSeconds() const { return waited_s_; }

 private:
  void consumeTurns();
  void take(int source, Bytes message);
  void hand(const ImageHistograms& batch);

  Communicator& ranks_;
  int root_;
  Consumer consume_;
  std::unordered_map<std::string, std::size_t> position_;  // of each path in the list
  std::size_t next_position_ = 0;                           // every image handed on must be at or after this
  int turn_ = 0;                                            // the rank whose batches are handed on now
  std::vector<std::deque<ImageHistograms>> waiting_;        // by rank: batches not yet handed on
  std::vector<bool> ended_;                                 // by rank: its end has arrived (or, here, finish())
  std::exception_ptr failure_;                              // from consume_ or a bad message: drained past
  std::int64_t bytes_ = 0;
  double waited_s_ = 0;
};

}  // namespace bovw::detail
