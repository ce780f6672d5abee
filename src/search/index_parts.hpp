// The databases a distributed index is made of on rank 0: each rank's images added to a database
// of that rank's own, by a thread of their own, as the rank's batches arrive; at the end the parts
// appended in rank order (ImageDatabase::append), which is the database of every image added in
// the list's order. Rank 0 used to add the other ranks' images to its one database after its own,
// so after the work while the others waited (2.8 s of a 16.4 s run on 4 GPUs, docs/SCALING.md),
// and added its own on the thread that drives its device.
#pragma once

#include <bovw/image_database.hpp>
#include <bovw/image_pipeline.hpp>

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace bovw::detail {

class IndexParts {
 public:
  // Adds image i of a batch to a database.
  using AddImage = std::function<void(ImageDatabase& database, const ImageHistograms& batch, std::size_t i)>;

  // `parts` empty databases (one per rank, all alike), filled by `add`.
  IndexParts(std::vector<ImageDatabase> parts, AddImage add);
  ~IndexParts();  // waits for the thread (any failure is dropped: finish() reports it)
  IndexParts(const IndexParts&) = delete;
  IndexParts& operator=(const IndexParts&) = delete;

  // Rank `part`'s next batch, in its list order: queued for the thread, so the caller goes on.
  void take(std::size_t part, ImageHistograms batch);
  // Waits until every batch taken is added, then returns the parts appended in order; throws the
  // first failure of an add (or of the appending).
  ImageDatabase finish();

 private:
  void run();

  std::vector<ImageDatabase> parts_;
  AddImage add_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::pair<std::size_t, ImageHistograms>> queue_;
  bool done_ = false;
  std::exception_ptr failure_;  // the first add that threw; later batches are dropped
  std::thread thread_;          // last: it starts once the members it uses are made
};

}  // namespace bovw::detail
