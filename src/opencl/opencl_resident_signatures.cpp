// OpenCL ResidentSignatures: the arena of every word's features on the device, followed by the writer
// through staged segments, and a search's words scored there in one launch.
//
// One in-order queue, taken by one caller at a time (a search's launch and read-back are about a
// tenth of a millisecond at 100,000 images, small beside the rest of a search), so a region that a
// follow() rewrites is never being read: the search before it has finished, the search after it
// reads the new table.
#include "opencl/opencl_resident_signatures.hpp"

#include "opencl/cl_errors.hpp"
#include "opencl/device_context.hpp"

#include <bovw/error.hpp>

#include <algorithm>
#include <cstring>
#include <limits>
#include <mutex>

namespace bovw::detail {

namespace {

using retrieval_detail::ResidentSignatures;
using retrieval_detail::SignaturePostings;

constexpr std::size_t kStagedFeatures = std::size_t{4} << 20;  // a flush: 48 MB of ids and signatures
constexpr std::size_t kGroup = 256;
constexpr std::size_t kFirstRunCapacity = std::size_t{1} << 16;

class OpenCLResidentSignatures final : public ResidentSignatures {
 public:
  OpenCLResidentSignatures(const std::string& spec, const SignaturePostings& postings)
      : device_(spec), regions_(postings.words()) {
    if (device_.device().getInfo<CL_DEVICE_EXTENSIONS>().find("cl_khr_fp64") == std::string::npos)
      throw InvalidInput("OpenCL device '" + device_.info().name +
                         "' lacks double precision (cl_khr_fp64), which Hamming scoring's sums need to be the "
                         "host's bit for bit");
    withOpenCLErrors([&] { rebuild(postings, 0); });
  }

  std::string deviceName() const override { return device_.info().name; }

  void follow(const SignaturePostings& postings, const std::vector<std::uint32_t>& words) override {
    const std::lock_guard<std::mutex> turn(mutex_);
    withOpenCLErrors([&] {
      if (words.empty()) return rebuild(postings, 0);
      std::size_t grow = 0;  // features of the words that need a new region where the arena has none
      for (const std::uint32_t word : words) {
        const SignaturePostings::Snapshot list = postings.snapshot(word);
        Region& region = regions_.at(word);
        const std::size_t n = list ? list->ids.size() : 0;
        if (n == 0) {
          region.length = 0;
          continue;
        }
        const bool appended = region.layout == list->layout && region.length <= n;
        if (n > region.capacity) {
          const std::size_t capacity = roomFor(n);
          if (capacity > arena_capacity_ - arena_used_) {
            grow += capacity;
            region.length = 0;  // to be placed by the rebuild
            continue;
          }
          region = Region{static_cast<std::uint32_t>(arena_used_), 0, static_cast<std::uint32_t>(capacity), 0};
          arena_used_ += capacity;
        } else if (!appended) {
          region.length = 0;  // rewritten from its first feature, in place
        }
        stage(*list, region);
      }
      if (grow > 0) return rebuild(postings, grow);
      flush();
    });
  }

  void pairSums(const std::vector<std::uint64_t>& query_signatures, const std::vector<Word>& words, std::size_t ids,
                int threshold, const double* weights, std::vector<std::size_t>& covered,
                std::vector<Run>& runs) override {
    covered.assign(words.size(), 0);
    if (query_signatures.empty() || words.empty()) return;
    const std::lock_guard<std::mutex> turn(mutex_);
    // The tasks: the words whose list the arena holds as the search took it, with what it holds.
    std::vector<std::uint32_t> first, start{0}, query_begin, query_end, word_of_task;
    std::uint64_t items = 0;
    for (std::size_t i = 0; i < words.size(); ++i) {
      const Word& w = words[i];
      if (!w.list) continue;
      const Region& region = regions_.at(w.word);
      if (region.length == 0 || region.layout != w.list->layout || region.length > w.list->ids.size()) continue;
      covered[i] = region.length;
      items += region.length;
      first.push_back(region.first);
      start.push_back(static_cast<std::uint32_t>(items));
      query_begin.push_back(static_cast<std::uint32_t>(w.query_begin));
      query_end.push_back(static_cast<std::uint32_t>(w.query_end));
      word_of_task.push_back(static_cast<std::uint32_t>(i));
    }
    if (items == 0) return;
    if (items > std::numeric_limits<std::uint32_t>::max() ||
        ids > std::numeric_limits<std::uint32_t>::max()) {  // the kernel counts in 32 bits: the host scores it
      covered.assign(words.size(), 0);
      return;
    }
    std::vector<std::uint32_t> tasks;
    tasks.reserve(first.size() * 4 + 1);
    for (const auto* part : {&first, &start, &query_begin, &query_end}) tasks.insert(tasks.end(), part->begin(), part->end());
    withOpenCLErrors([&] {
      cl::CommandQueue& queue = device_.queue();
      ScratchBuffers& scratch = device_.scratch();
      const cl::Buffer task_buffer =
          scratch.upload(queue, "signatures.tasks", tasks.data(), tasks.size() * sizeof(std::uint32_t));
      const cl::Buffer query_buffer = scratch.upload(queue, "signatures.query", query_signatures.data(),
                                                     query_signatures.size() * sizeof(std::uint64_t));
      const cl::Buffer weight_buffer =
          scratch.upload(queue, "signatures.weights", weights, (static_cast<std::size_t>(threshold) + 1) * sizeof(double));
      cl::Kernel& kernel = device_.kernel("signature_runs", "signature_runs", "");
      for (;;) {
        const cl::Buffer count = scratch.get("signatures.run_count", sizeof(cl_uint));
        const cl::Buffer run_word = scratch.get("signatures.run_word", run_capacity_ * sizeof(cl_uint));
        const cl::Buffer run_id = scratch.get("signatures.run_id", run_capacity_ * sizeof(cl_uint));
        const cl::Buffer run_features = scratch.get("signatures.run_features", run_capacity_ * sizeof(cl_uint));
        const cl::Buffer run_pairs = scratch.get("signatures.run_pairs", run_capacity_ * sizeof(cl_double));
        queue.enqueueFillBuffer(count, cl_uint{0}, 0, sizeof(cl_uint));
        int arg = 0;
        kernel.setArg(arg++, ids_);
        kernel.setArg(arg++, signatures_);
        kernel.setArg(arg++, task_buffer);
        kernel.setArg(arg++, static_cast<cl_uint>(first.size()));
        kernel.setArg(arg++, query_buffer);
        kernel.setArg(arg++, weight_buffer);
        kernel.setArg(arg++, static_cast<cl_uint>(threshold));
        kernel.setArg(arg++, static_cast<cl_uint>(ids));
        kernel.setArg(arg++, count);
        kernel.setArg(arg++, static_cast<cl_uint>(run_capacity_));
        kernel.setArg(arg++, run_word);
        kernel.setArg(arg++, run_id);
        kernel.setArg(arg++, run_features);
        kernel.setArg(arg++, run_pairs);
        const std::size_t global = (items + kGroup - 1) / kGroup * kGroup;
        queue.enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(global), cl::NDRange(kGroup));
        auto* found = reinterpret_cast<cl_uint*>(scratch.pinned("signatures.count_back", sizeof(cl_uint)));
        queue.enqueueReadBuffer(count, CL_TRUE, 0, sizeof(cl_uint), found);
        const std::size_t n = *found;
        if (n > run_capacity_) {  // more runs than room: again with room for them all
          run_capacity_ = n + n / 4;
          continue;
        }
        if (n == 0) return;
        unsigned char* back = scratch.pinned("signatures.runs_back", n * (3 * sizeof(cl_uint) + sizeof(cl_double)));
        auto* words_back = reinterpret_cast<cl_uint*>(back);
        auto* ids_back = words_back + n;
        auto* features_back = ids_back + n;
        auto* pairs_back = reinterpret_cast<cl_double*>(features_back + n);
        queue.enqueueReadBuffer(run_word, CL_FALSE, 0, n * sizeof(cl_uint), words_back);
        queue.enqueueReadBuffer(run_id, CL_FALSE, 0, n * sizeof(cl_uint), ids_back);
        queue.enqueueReadBuffer(run_features, CL_FALSE, 0, n * sizeof(cl_uint), features_back);
        queue.enqueueReadBuffer(run_pairs, CL_TRUE, 0, n * sizeof(cl_double), pairs_back);
        runs.reserve(runs.size() + n);
        for (std::size_t r = 0; r < n; ++r)
          runs.push_back({word_of_task[words_back[r]], ids_back[r], features_back[r], pairs_back[r]});
        return;
      }
    });
  }

 private:
  // A word's place in the arena: capacity features from `first`, of which the first `length` are a
  // copy of the list of that layout.
  struct Region {
    std::uint32_t first = 0, length = 0, capacity = 0;
    std::uint64_t layout = 0;
  };

  // Room for a list of n features: a quarter more, so that appends fill it before it moves.
  static std::size_t roomFor(std::size_t n) { return n + n / 4 + 16; }

  // Every list placed anew in an arena with room for all of them, `more` besides and half again.
  void rebuild(const SignaturePostings& postings, std::size_t more) {
    clearStaged();  // staged for the old arena's places
    std::size_t needed = more;
    for (std::uint32_t w = 0; w < postings.words(); ++w)
      if (const auto list = postings.snapshot(w)) needed += roomFor(list->ids.size());
    const std::size_t capacity = std::max<std::size_t>(needed + needed / 2, 1024);
    if (capacity > std::numeric_limits<std::uint32_t>::max())
      throw CapacityError("the signature lists hold more features than a device arena indexes in 32 bits");
    const std::size_t limit = device_.device().getInfo<CL_DEVICE_MAX_MEM_ALLOC_SIZE>();
    if (capacity * sizeof(cl_ulong) > limit)
      throw CapacityError("the signature lists need " + std::to_string(capacity * sizeof(cl_ulong) >> 20) +
                          " MiB of device memory in one buffer; device '" + device_.info().name + "' allows " +
                          std::to_string(limit >> 20) + " MiB");
    ids_ = cl::Buffer();  // the old arena goes first
    signatures_ = cl::Buffer();
    ids_ = cl::Buffer(device_.context(), CL_MEM_READ_WRITE, capacity * sizeof(cl_uint));
    signatures_ = cl::Buffer(device_.context(), CL_MEM_READ_WRITE, capacity * sizeof(cl_ulong));
    arena_capacity_ = capacity;
    arena_used_ = 0;
    for (std::uint32_t w = 0; w < postings.words(); ++w) {
      const auto list = postings.snapshot(w);
      const std::size_t n = list ? list->ids.size() : 0;
      regions_[w] = Region{static_cast<std::uint32_t>(arena_used_), 0, static_cast<std::uint32_t>(roomFor(n)), 0};
      arena_used_ += roomFor(n);
      if (n > 0) stage(*list, regions_[w]);
    }
    flush();
  }

  // Stages the features of `list` from region.length on, to follow them in the region.
  void stage(const SignaturePostings::WordFeatures& list, Region& region) {
    const std::size_t from = region.length, n = list.ids.size();
    if (n > from) {
      segments_from_.push_back(static_cast<std::uint32_t>(staged_ids_.size()));
      segments_to_.push_back(region.first + static_cast<std::uint32_t>(from));
      segments_count_.push_back(static_cast<std::uint32_t>(n - from));
      staged_ids_.insert(staged_ids_.end(), list.ids.begin() + static_cast<std::ptrdiff_t>(from), list.ids.end());
      staged_signatures_.insert(staged_signatures_.end(), list.signatures.begin() + static_cast<std::ptrdiff_t>(from),
                                list.signatures.end());
    }
    region.length = static_cast<std::uint32_t>(n);
    region.layout = list.layout;
    if (staged_ids_.size() >= kStagedFeatures) flush();
  }

  // Copies the staged features into their regions, and waits for it.
  void flush() {
    if (segments_count_.empty()) return;
    cl::CommandQueue& queue = device_.queue();
    ScratchBuffers& scratch = device_.scratch();
    const std::size_t n = staged_ids_.size(), segments = segments_count_.size();
    std::vector<std::uint32_t> table(segments_from_);
    table.insert(table.end(), segments_to_.begin(), segments_to_.end());
    table.insert(table.end(), segments_count_.begin(), segments_count_.end());
    const cl::Buffer ids = scratch.get("signatures.staged_ids", n * sizeof(cl_uint));
    const cl::Buffer signatures = scratch.get("signatures.staged_signatures", n * sizeof(cl_ulong));
    const cl::Buffer segment_buffer = scratch.get("signatures.segments", table.size() * sizeof(cl_uint));
    queue.enqueueWriteBuffer(ids, CL_FALSE, 0, n * sizeof(cl_uint), staged_ids_.data());
    queue.enqueueWriteBuffer(signatures, CL_FALSE, 0, n * sizeof(cl_ulong), staged_signatures_.data());
    queue.enqueueWriteBuffer(segment_buffer, CL_FALSE, 0, table.size() * sizeof(cl_uint), table.data());
    cl::Kernel& kernel = device_.kernel("signature_runs", "scatter_segments", "");
    kernel.setArg(0, ids);
    kernel.setArg(1, signatures);
    kernel.setArg(2, segment_buffer);
    kernel.setArg(3, static_cast<cl_uint>(segments));
    kernel.setArg(4, ids_);
    kernel.setArg(5, signatures_);
    constexpr std::size_t kLanes = 64;  // work-items along a segment
    finishingQueueOnFailure(queue, [&] {
      queue.enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(kLanes, segments), cl::NDRange(kLanes, 1));
      queue.finish();
    });
    clearStaged();
  }

  void clearStaged() {
    staged_ids_.clear();
    staged_signatures_.clear();
    segments_from_.clear();
    segments_to_.clear();
    segments_count_.clear();
  }

  DeviceContext device_;
  std::mutex mutex_;  // the queue, the arena and the regions: one caller at a time
  std::vector<Region> regions_;  // by word
  cl::Buffer ids_, signatures_;  // the arena
  std::size_t arena_capacity_ = 0, arena_used_ = 0;
  std::size_t run_capacity_ = kFirstRunCapacity;
  // Features to copy into the arena at the next flush, and where to.
  std::vector<std::uint32_t> staged_ids_;
  std::vector<std::uint64_t> staged_signatures_;
  std::vector<std::uint32_t> segments_from_, segments_to_, segments_count_;
};

}  // namespace

std::unique_ptr<retrieval_detail::ResidentSignatures> makeResidentSignatures(const std::string& device,
                                                                             const SignaturePostings& postings) {
  return std::make_unique<OpenCLResidentSignatures>(device, postings);
}

}  // namespace bovw::detail
