// The chapter's five variants (GPU1..GPU5): transpose the batch if the variant reads D x N, then
// run the histogram kernel once per vocabulary chunk (one chunk unless the centroids live in a
// too-small constant buffer), carrying each row's running minimum between chunks.
#include "opencl/device_search.hpp"
#include "opencl/kernel_variants.hpp"

#include <bovw/error.hpp>

#include <algorithm>

namespace bovw::detail {

namespace {

struct VocabularyChunk {
  cl::Buffer words;
  int begin;
  int count;
};

class ChapterSearch final : public DeviceSearch {
 public:
  ChapterSearch(DeviceContext& device, const HistogrammerConfig& config)
      : device_(device),
        programs_(device.programs()),
        variant_(config.variant),
        traits_(traitsOf(config.variant)),
        work_group_size_(config.work_group_size),
        extra_options_(config.build_options) {
    const auto& info = device_.info();
    if (static_cast<std::size_t>(work_group_size_) > info.max_work_group_size)
      throw CapacityError("work-group size " + std::to_string(work_group_size_) + " exceeds " +
                          info.name + "'s maximum of " + std::to_string(info.max_work_group_size));
  }

  std::string describe() const override {
    return std::string(toString(variant_)) + " (work-group " + std::to_string(work_group_size_) + ")";
  }

  void prepare(int d) override {
    if (d == kernels_width_) return;
    const auto& info = device_.info();
    const std::uint64_t local_bytes = sizeof(float) * static_cast<std::uint64_t>(work_group_size_) * d;
    if (traits_.local_descriptors && local_bytes > info.local_memory)
      throw CapacityError("variant '" + std::string(toString(variant_)) + "' needs work-group x D x 4 = " +
                          std::to_string(local_bytes) + " bytes of local memory; " + info.name + " has " +
                          std::to_string(info.local_memory) + ": use a smaller work-group size");
    if (traits_.constant_centroids && sizeof(float) * static_cast<std::uint64_t>(d) > info.constant_memory)
      throw CapacityError("one word of width " + std::to_string(d) + " does not fit " + info.name +
                          "'s constant buffer of " + std::to_string(info.constant_memory) + " bytes");
    tile_ = info.max_work_group_size >= 256 ? 16 : 8;
    const std::string options = "-cl-std=CL1.2 -DBOVW_D=" + std::to_string(d) +
                                " -DBOVW_WG=" + std::to_string(work_group_size_) + " " +
                                traits_.defines + " " + extra_options_;
    histogram_ = programs_.kernel(traits_.file, traits_.kernel, options);
    const auto limit = histogram_.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(device_.device());
    if (static_cast<std::size_t>(work_group_size_) > limit)
      throw CapacityError("kernel '" + std::string(traits_.kernel) + "' can run at most " +
                          std::to_string(limit) + " work-items per group on " + info.name +
                          ", asked for " + std::to_string(work_group_size_));
    if (traits_.transposed)
      transpose_ = programs_.kernel("transpose", "transpose", "-DBOVW_TILE=" + std::to_string(tile_) +
                                                               " " + extra_options_);
    kernels_width_ = d;
  }

  void setVocabulary(const Vocabulary& vocabulary) override {
    if (vocabulary.id() == vocabulary_id_) return;
    chunks_.clear();
    vocabulary_id_ = 0;
    const int k_words = vocabulary.size();
    const std::size_t word_bytes = sizeof(float) * vocabulary.dimension();
    int per_chunk = k_words;
    if (traits_.constant_centroids)
      per_chunk = static_cast<int>(std::min<std::uint64_t>(k_words, device_.info().constant_memory / word_bytes));
    for (int begin = 0; begin < k_words; begin += per_chunk) {
      const int count = std::min(per_chunk, k_words - begin);
      auto* words = const_cast<float*>(vocabulary.centroids().row(begin).data());
      chunks_.push_back({cl::Buffer(device_.context(), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                    word_bytes * count, words),
                         begin, count});
    }
    vocabulary_id_ = vocabulary.id();
  }

  std::uint64_t extraBytes(int n, int d, const Vocabulary& vocabulary) const override {
    const std::uint64_t rows = static_cast<std::uint64_t>(n);
    return (traits_.transposed ? sizeof(float) * rows * d : 0) + sizeof(float) * rows +
           sizeof(float) * static_cast<std::uint64_t>(vocabulary.centroids().size());
  }

  void enqueue(cl::CommandQueue& queue, const DeviceBatch& batch, SearchEvents& events) override {
    const int n = batch.n;
    const int d = batch.d;
    cl::Buffer input = batch.descriptors;
    if (traits_.transposed) {
      cl::Buffer& xt = transposed_.ensure(device_.context(), sizeof(float) * static_cast<std::size_t>(n) * d,
                                          CL_MEM_READ_WRITE);
      transpose_.setArg(0, batch.descriptors);
      transpose_.setArg(1, xt);
      transpose_.setArg(2, n);
      transpose_.setArg(3, d);
      events.transpose.emplace_back();
      queue.enqueueNDRangeKernel(transpose_, cl::NullRange, cl::NDRange(roundUp(d, tile_), roundUp(n, tile_)),
                                 cl::NDRange(tile_, tile_), nullptr, &events.transpose.back());
      input = xt;
    }
    cl::Buffer& best_dist = best_dist_.ensure(device_.context(), sizeof(float) * n, CL_MEM_READ_WRITE);
    for (std::size_t c = 0; c < chunks_.size(); ++c) {
      const VocabularyChunk& chunk = chunks_[c];
      // The order of BOVW_HISTOGRAM_PARAMS in kernels/common.h.
      histogram_.setArg(0, input);
      histogram_.setArg(1, chunk.words);
      histogram_.setArg(2, cl_int{n});
      histogram_.setArg(3, cl_int{chunk.begin});
      histogram_.setArg(4, cl_int{chunk.count});
      histogram_.setArg(5, cl_int{static_cast<int>(chunks_.back().begin + chunks_.back().count)});
      histogram_.setArg(6, cl_int{c == 0});
      histogram_.setArg(7, cl_int{c + 1 == chunks_.size()});
      histogram_.setArg(8, best_dist);
      histogram_.setArg(9, batch.best_word);
      histogram_.setArg(10, batch.offsets);
      histogram_.setArg(11, cl_int{batch.images});
      histogram_.setArg(12, cl_int{batch.row_base});
      histogram_.setArg(13, batch.histograms);
      events.kernels.emplace_back();
      queue.enqueueNDRangeKernel(histogram_, cl::NullRange, cl::NDRange(roundUp(n, work_group_size_)),
                                 cl::NDRange(work_group_size_), nullptr, &events.kernels.back());
    }
  }

 private:
  DeviceContext& device_;
  ProgramCache& programs_;
  KernelVariant variant_;
  VariantTraits traits_;
  int work_group_size_;
  std::string extra_options_;

  int kernels_width_ = -1;
  int tile_ = 16;
  cl::Kernel histogram_;
  cl::Kernel transpose_;

  std::uint64_t vocabulary_id_ = 0;
  std::vector<VocabularyChunk> chunks_;
  GrowingBuffer transposed_, best_dist_;
};

}  // namespace

std::unique_ptr<DeviceSearch> makeChapterSearch(DeviceContext& device, const HistogrammerConfig& config) {
  return std::make_unique<ChapterSearch>(device, config);
}

}  // namespace bovw::detail
