// The images' results of a distributed job streamed to one rank while the ranks still work, in
// place of one gather at the end: every rank posts each finished batch at once (nonblocking,
// Communicator::post), and the receiving rank hands on its own batches as they come and collects
// what the others sent whenever it looks (between its own batches), each batch as soon as it is
// there, tagged with its rank: the consumer keeps each rank's part apart and puts the parts
// together in rank order at the end (the parts of a job are contiguous and dealt in rank order,
// src/distributed/work_split.hpp), so that nothing waits for the ranks before it.
#pragma once

#include <bovw/communicator.hpp>
#include <bovw/image_pipeline.hpp>

#include <cstdint>
#include <exception>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

namespace bovw::detail {

class ResultStream {
 public:
  using Consumer = std::function<void(int rank, ImageHistograms batch)>;

  // `consume` runs on `root` only, on the calling thread, for each batch of each rank in that
  // rank's list order (`paths`, the job's list). Rank r's part must follow rank r-1's in the list:
  // an image out of that order, or twice, fails the stream (InvalidInput) where the ranks then
  // agree on the failure.
  ResultStream(Communicator& ranks, const std::vector<std::string>& paths, int root, Consumer consume);

  // This rank's next finished batch, in list order. Elsewhere than on the root it is posted to the
  // root; on the root it is handed on at once, and the root then takes whatever the other ranks
  // have sent so far, so that their sends can go on.
  void add(ImageHistograms batch);
  // This rank has added all it will add, its work done or failed: the other ranks post the end of
  // their stream and wait until their messages have left; the root takes every other rank's
  // batches up to that end and hands them on. Never throws before the stream is drained (no rank is
  // left sending); then throws what consuming a batch threw, if anything.
  void finish();

  // Bytes this rank posted (not the root) or received (the root), for --profile.
  std::int64_t bytes() const { return bytes_; }
  // Seconds finish() waited on the root for batches that had not arrived yet.
  double waitedSeconds() const { return waited_s_; }

 private:
  void takeArrived();
  void take(int source, Bytes message);
  void hand(int rank, ImageHistograms batch);

  Communicator& ranks_;
  int root_;
  Consumer consume_;
  std::unordered_map<std::string, std::size_t> position_;  // of each path in the list
  // By rank: the list positions of the first and the last image handed on (none: SIZE_MAX, 0).
  std::vector<std::size_t> first_, last_;
  std::vector<bool> ended_;                                 // by rank: its end has arrived (or, here, finish())
  std::exception_ptr failure_;                              // from consume_ or a bad message: drained past
  std::int64_t bytes_ = 0;
  double waited_s_ = 0;
};

}  // namespace bovw::detail
