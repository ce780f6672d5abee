// What both tiled searches (FP32 and TF32) share: the vocabulary resident on the device in the
// layouts the exact paths read (transposed FP32 words and their squared norms), and the second
// pass, tiled.cl's recheck_flagged, over the rows the first pass could not certify.
#pragma once

#include "opencl/device_search.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

namespace bovw::detail {

// The words as kernels/tiled.cl and tiled_tensor.cl read them for exact distances: transposed and
// zero-padded to k_padded words (rows of `d_padded` features), squared norms in float64 rounded
// once (+inf for padding words), and the largest norm.
struct ResidentWords {
  cl::Buffer words_t, norms;
  int n_words = 0;
  int k_padded = 0;
  float max_norm = 0;
};
ResidentWords uploadResidentWords(const cl::Context& context, const Vocabulary& vocabulary, int k_padded,
                                  int d_padded);

// recheck_flagged over the rows a first pass listed in flagged()/count() (which the first pass
// fills: count zeroed here before it runs). count() holds two ints: the rows flagged, and the rows
// the first pass settled itself by direct sums (TF32: among the few words its lanes kept).
// rechecked() reports both, per call; fullyRechecked() the first.
class ExactRecheck {
 public:
  // Flagged rows per work-group, at most: each word a group reads serves all its rows. More rows
  // read less from L2 but were slower on an H100 (8 and 16 against 4: journal, 2026-12-06), and a
  // large D may leave local memory for fewer.
  static constexpr int kMostRows = 4;
  static constexpr std::size_t kPreferredGroup = 256;  // work-items per group, unless asked for more

  ExactRecheck(DeviceContext& device, int group_size);
  // The build options recheck_flagged needs beyond BOVW_D, for descriptors of d features: appended
  // to the first pass's options when it is in tiled.cl too, so that one program serves both.
  std::string options(int d) const;
  // Builds (or finds in the program cache) the kernel from tiled.cl with `options`, which must
  // define BOVW_D and include options(d).
  void prepare(const std::string& options);
  // Zeroes the count and makes room for n flagged rows; call before enqueueing the first pass.
  void begin(cl::CommandQueue& queue, int n);
  cl::Buffer& flagged() { return flagged_buffer_; }
  cl::Buffer& count() { return count_buffer_; }
  // After the first pass: the re-check of what it flagged, and the count read back for rechecked().
  void enqueue(cl::CommandQueue& queue, const DeviceBatch& batch, const ResidentWords& words, SearchEvents& events);
  int groupSize() const { return group_size_; }

  void startCall() { batches_ = 0; }
  std::int64_t rechecked() const { return countedRows(2); }
  std::int64_t fullyRechecked() const { return countedRows(1); }

 private:
  // The first `kinds` counts of this call's batches, summed.
  std::int64_t countedRows(int kinds) const;

  // The word ranges a flagged row's walk is split into (kernels/tiled.cl): one where the device has
  // no 64-bit atomics or K is a few steps of the group, else up to kMostSplits.
  int splitsFor(int n_words) const;
  static constexpr int kMostSplits = 16;
  // Flagged rows per group for descriptors of d features: as many as local memory holds.
  int rowsFor(int d) const;

  DeviceContext& device_;
  int group_size_;
  bool splitting_;  // the device has cl_khr_int64_extended_atomics: rows' walks may be split
  cl::Kernel kernel_, finish_;
  GrowingBuffer flagged_, count_, keys_;
  cl::Buffer flagged_buffer_, count_buffer_, keys_buffer_;
  // The counts of the call's batches, read back into pinned chunks of the device's scratch memory (a
  // read into pageable memory left the device idle while the host copied it), kChunk batches a chunk.
  static constexpr std::size_t kChunk = 512;
  cl_int* countsOf(std::size_t batch) const;  // batch's two ints
  std::size_t batches_ = 0;
};

}  // namespace bovw::detail
