// The statistics TF-IDF weights are computed from: N, the number of images, and n_w, how many of
// them hold word w. Kept apart from the posting lists so that the models of several indexes (the
// shards of one database, later the ranks of an MPI job) add up to the model of their union, and
// each index can score its images with that global idf: the ranking is then the one the unsharded
// index gives.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace bovw {

// A value: copies compare equal and share a version (used by InvertedIndex to cache the weights
// computed from a model); every construction and every merge makes a new version.
class TfIdfModel {
 public:
  // K words, no image: N = 0 and every n_w = 0. Throws InvalidInput for K < 1.
  explicit TfIdfModel(int words);
  // Throws InvalidInput for an empty frequency list or an n_w above N (naming w).
  TfIdfModel(std::uint64_t images, std::vector<std::uint64_t> document_frequencies);

  int words() const { return static_cast<int>(document_frequencies_.size()); }
  std::uint64_t images() const { return images_; }  // N
  std::uint64_t documentFrequency(std::size_t word) const { return document_frequencies_[word]; }  // n_w
  const std::vector<std::uint64_t>& documentFrequencies() const { return document_frequencies_; }

  // The smoothed idf_w = ln((1 + N) / (1 + n_w)) + 1 (inverted_index.hpp says why smoothed).
  double idf(std::size_t word) const;

  // Adds another model's N and n_w: the model of the union of both models' images. Integer sums,
  // so shards merged in any order give the same model. Throws InvalidInput naming both K if they
  // differ, CapacityError if a count would overflow.
  TfIdfModel& operator+=(const TfIdfModel& other);

  // The raw counts as one array, [N, n_0, ..., n_{K-1}]: what ranks would sum elementwise
  // (MPI_Allreduce with MPI_SUM over MPI_UINT64_T) to make the global model. fromCounts reads it
  // back, with the constructor's checks.
  std::vector<std::uint64_t> counts() const;
  static TfIdfModel fromCounts(const std::vector<std::uint64_t>& counts);

  // Same N and n_w (the version is not compared).
  friend bool operator==(const TfIdfModel& a, const TfIdfModel& b);
  friend bool operator!=(const TfIdfModel& a, const TfIdfModel& b) { return !(a == b); }

  // Identifies this value: equal versions mean equal counts (the converse need not hold).
  std::uint64_t version() const { return version_; }

 private:
  std::uint64_t images_ = 0;
  std::vector<std::uint64_t> document_frequencies_;
  std::uint64_t version_;
};

TfIdfModel operator+(TfIdfModel a, const TfIdfModel& b);

}  // namespace bovw
