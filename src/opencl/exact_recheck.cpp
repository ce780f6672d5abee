// The resident words of the tiled searches and their exact second pass (exact_recheck.hpp).
#include "opencl/exact_recheck.hpp"

#include "opencl/device_context.hpp"

#include <bovw/error.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace bovw::detail {

ResidentWords uploadResidentWords(const cl::Context& context, const Vocabulary& vocabulary, int k_padded,
                                  int d_padded) {
  const auto& c = vocabulary.centroids();
  const int k = vocabulary.size();
  const int d = vocabulary.dimension();
  std::vector<float> words_t(static_cast<std::size_t>(d_padded) * k_padded, 0.0f);
  std::vector<float> norms(k_padded, std::numeric_limits<float>::infinity());
  double max_norm = 0;
  for (int j = 0; j < k; ++j) {
    double norm = 0;
    for (int f = 0; f < d; ++f) {
      words_t[static_cast<std::size_t>(f) * k_padded + j] = c(j, f);
      norm += static_cast<double>(c(j, f)) * c(j, f);
    }
    norms[j] = static_cast<float>(norm);
    max_norm = std::max(max_norm, std::sqrt(norm));
  }
  auto upload = [&](std::vector<float>& data) {
    return cl::Buffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof(float) * data.size(), data.data());
  };
  ResidentWords words;
  words.words_t = upload(words_t);
  words.norms = upload(norms);
  words.n_words = k;
  words.k_padded = k_padded;
  words.max_norm = static_cast<float>(std::min<double>(max_norm, std::numeric_limits<float>::max()));
  return words;
}

ExactRecheck::ExactRecheck(DeviceContext& device, int group_size)
    : device_(device),
      group_size_(group_size),
      splitting_(device.device().getInfo<CL_DEVICE_EXTENSIONS>().find("cl_khr_int64_extended_atomics") !=
                 std::string::npos) {
  if (static_cast<std::size_t>(group_size_) > device.info().max_work_group_size)
    throw CapacityError("work-group size " + std::to_string(group_size_) + " exceeds " + device.info().name +
                        "'s maximum of " + std::to_string(device.info().max_work_group_size));
}

int ExactRecheck::rowsFor(int d) const {
  // A group's local memory: its rows' descriptors, and a distance and a word per row and work-item
  // for the reduction. The group is at most the larger of the asked and the preferred size (prepare).
  const std::uint64_t items = std::max<std::size_t>(group_size_, kPreferredGroup);
  int rows = kMostRows;
  while (rows > 1 && static_cast<std::uint64_t>(rows) * (4 * d + 8 * items) > device_.info().local_memory) rows /= 2;
  return rows;
}

std::string ExactRecheck::options(int d) const {
  return " -DBOVW_RECHECK_ROWS=" + std::to_string(rowsFor(d)) + " -DBOVW_RECHECK_SPLITS=" + (splitting_ ? "1" : "0");
}

void ExactRecheck::prepare(const std::string& options) {
  kernel_ = device_.programs().kernel("tiled", "recheck_flagged", options);
  if (splitting_) finish_ = device_.programs().kernel("tiled", "recheck_finish", options);
  const auto limit = kernel_.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(device_.device());
  if (static_cast<std::size_t>(group_size_) > limit)
    throw CapacityError("kernel 'recheck_flagged' can run at most " + std::to_string(limit) +
                        " work-items per group on " + device_.info().name + ", asked for " +
                        std::to_string(group_size_) + ": use a smaller work-group size");
  // A group splits its rows' words over its work-items, so the walk over K that each makes, one
  // dependent sum of D terms per word, is what the pass takes when few rows are flagged (0.2% of
  // uniform ones): more work-items per group, where the kernel allows them, shorten it.
  group_size_ = static_cast<int>(std::max<std::size_t>(group_size_, std::min<std::size_t>(kPreferredGroup, limit)));
}

void ExactRecheck::begin(cl::CommandQueue& queue, int n) {
  flagged_buffer_ = flagged_.ensure(device_.context(), sizeof(cl_int) * n, CL_MEM_READ_WRITE);
  count_buffer_ = count_.ensure(device_.context(), 2 * sizeof(cl_int), CL_MEM_READ_WRITE);
  queue.enqueueFillBuffer(count_buffer_, cl_int{0}, 0, 2 * sizeof(cl_int));
}

int ExactRecheck::splitsFor(int n_words) const {
  if (!splitting_) return 1;
  return std::clamp(n_words / (4 * group_size_), 1, kMostSplits);
}

void ExactRecheck::enqueue(cl::CommandQueue& queue, const DeviceBatch& batch, const ResidentWords& words,
                           SearchEvents& events) {
  // A fixed grid that loops over the flagged rows, `rows` at a time (as the kernel was built with):
  // the count stays on the device.
  // Usually few rows are flagged, and groups beyond the count return at once; 32 groups per
  // compute unit give each group one turn.
  int a = 0;
  kernel_.setArg(a++, batch.descriptors);
  kernel_.setArg(a++, cl_int{batch.row_base});
  kernel_.setArg(a++, words.words_t);
  kernel_.setArg(a++, cl_int{words.n_words});
  kernel_.setArg(a++, cl_int{words.k_padded});
  kernel_.setArg(a++, batch.offsets);
  kernel_.setArg(a++, cl_int{batch.images});
  kernel_.setArg(a++, batch.best_word);
  kernel_.setArg(a++, batch.histograms);
  kernel_.setArg(a++, flagged_buffer_);
  kernel_.setArg(a++, count_buffer_);
  const int splits = splitsFor(words.n_words);
  if (splits > 1) {  // every key "nothing yet", so that atom_min keeps the first range's answer
    keys_buffer_ = keys_.ensure(device_.context(), sizeof(cl_ulong) * batch.n, CL_MEM_READ_WRITE);
    queue.enqueueFillBuffer(keys_buffer_, ~cl_ulong{0}, 0, sizeof(cl_ulong) * batch.n);
  }
  // In one range the kernel never touches keys: any buffer stands in.
  kernel_.setArg(a++, splits > 1 ? keys_buffer_ : flagged_buffer_);
  kernel_.setArg(a++, cl_int{splits});
  const int rows = rowsFor(batch.d);
  kernel_.setArg(a++, cl::Local(sizeof(float) * rows * batch.d));
  kernel_.setArg(a++, cl::Local(sizeof(float) * rows * group_size_));
  kernel_.setArg(a++, cl::Local(sizeof(cl_int) * rows * group_size_));
  const std::size_t groups = std::min<std::size_t>((static_cast<std::size_t>(batch.n) + rows - 1) / rows,
                                                   std::size_t{32} * std::max(1u, device_.info().compute_units));
  events.recheck.emplace_back();
  queue.enqueueNDRangeKernel(kernel_, cl::NullRange, cl::NDRange(groups * group_size_), cl::NDRange(group_size_),
                             nullptr, &events.recheck.back());
  if (splits > 1) {
    int f = 0;
    finish_.setArg(f++, keys_buffer_);
    finish_.setArg(f++, flagged_buffer_);
    finish_.setArg(f++, count_buffer_);
    finish_.setArg(f++, cl_int{batch.row_base});
    finish_.setArg(f++, batch.offsets);
    finish_.setArg(f++, cl_int{batch.images});
    finish_.setArg(f++, cl_int{words.n_words});
    finish_.setArg(f++, batch.best_word);
    finish_.setArg(f++, batch.histograms);
    events.recheck.emplace_back();
    queue.enqueueNDRangeKernel(finish_, cl::NullRange, cl::NDRange(groups * group_size_), cl::NDRange(group_size_),
                               nullptr, &events.recheck.back());
  }
  queue.enqueueReadBuffer(count_buffer_, CL_FALSE, 0, 2 * sizeof(cl_int), countsOf(batches_++));
}

cl_int* ExactRecheck::countsOf(std::size_t batch) const {
  auto* chunk = reinterpret_cast<cl_int*>(
      device_.scratch().pinned("recheck.counts." + std::to_string(batch / kChunk), 2 * sizeof(cl_int) * kChunk));
  return chunk + 2 * (batch % kChunk);
}

std::int64_t ExactRecheck::countedRows(int kinds) const {
  std::int64_t total = 0;
  for (std::size_t i = 0; i < batches_; ++i)
    for (int kind = 0; kind < kinds; ++kind) total += countsOf(i)[kind];
  return total;
}

}  // namespace bovw::detail
