// bovw's tiled kernel on the host side: tile sizes (checked; chosen in device_tuning.cpp), the
// words in the layouts kernels/tiled.cl reads (transposed and padded, and their squared norms), and
// the two launches: the fused tiled pass, then the re-check
// of the rows it flagged.
#include "opencl/device_search.hpp"

#include <bovw/error.hpp>

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>

namespace bovw::detail {

namespace {

constexpr int kRecheckRows = 4;  // flagged rows per re-check work-group: each word read serves them all

// The tile sizes as given: the histogrammer has filled the unset ones from the tuning table or file
// (device_tuning.hpp); here they are checked against the kernel's needs and the device's limits.
TileSizes checkedTiles(const TileSizes& t, const DeviceInfo& info) {
  auto multipleOf4 = [](int value, const char* what) {
    if (value % 4 != 0) throw InvalidInput(std::string("tile sizes: ") + what + " = " + std::to_string(value) +
                                           " must be a multiple of 4");
  };
  multipleOf4(t.rows_per_item, "rows per work-item");
  multipleOf4(t.words_per_item, "words per work-item");
  multipleOf4(t.depth, "depth");
  const std::size_t threads = static_cast<std::size_t>(t.group_rows) * t.group_words;
  if (threads > info.max_work_group_size)
    throw CapacityError("tile sizes: " + std::to_string(t.group_rows) + " x " + std::to_string(t.group_words) +
                        " work-items per group exceed " + info.name + "'s maximum of " +
                        std::to_string(info.max_work_group_size));
  return t;
}

std::string tileText(const TileSizes& t) {
  return std::to_string(t.group_rows * t.rows_per_item) + "x" + std::to_string(t.group_words * t.words_per_item) +
         " (" + std::to_string(t.rows_per_item) + "x" + std::to_string(t.words_per_item) + " per work-item, depth " +
         std::to_string(t.depth) + ")";
}

class TiledSearch final : public DeviceSearch {
 public:
  TiledSearch(DeviceContext& device, const HistogrammerConfig& config)
      : device_(device),
        programs_(device.programs()),
        tiles_(checkedTiles(config.tiles, device.info())),
        threads_(tiles_.group_rows * tiles_.group_words),
        block_rows_(tiles_.group_rows * tiles_.rows_per_item),
        block_words_(tiles_.group_words * tiles_.words_per_item),
        recheck_group_(config.work_group_size),
        extra_options_(config.build_options) {
    const std::uint64_t local_bytes = localBytes();
    if (local_bytes > device.info().local_memory)
      throw CapacityError("tile sizes " + tileText(tiles_) + " need " + std::to_string(local_bytes) +
                          " bytes of local memory; " + device.info().name + " has " +
                          std::to_string(device.info().local_memory));
    if (static_cast<std::size_t>(recheck_group_) > device.info().max_work_group_size)
      throw CapacityError("work-group size " + std::to_string(recheck_group_) + " exceeds " + device.info().name +
                          "'s maximum of " + std::to_string(device.info().max_work_group_size));
  }

  std::string describe() const override {
    return "tiled " + tileText(tiles_) + ", re-check work-group " + std::to_string(recheck_group_);
  }

  void prepare(int d) override {
    if (d == kernels_width_) return;
    const std::string options =
        "-cl-std=CL1.2 -DBOVW_D=" + std::to_string(d) + " -DBOVW_TM=" + std::to_string(tiles_.rows_per_item) +
        " -DBOVW_TN=" + std::to_string(tiles_.words_per_item) + " -DBOVW_WGR=" + std::to_string(tiles_.group_rows) +
        " -DBOVW_WGC=" + std::to_string(tiles_.group_words) + " -DBOVW_BK=" + std::to_string(tiles_.depth) +
        " -DBOVW_RECHECK_ROWS=" + std::to_string(kRecheckRows) + " " +
        extra_options_;
    tiled_ = programs_.kernel("tiled", "histogram_tiled", options);
    recheck_ = programs_.kernel("tiled", "recheck_flagged", options);
    checkGroupSize(tiled_, "histogram_tiled", threads_);
    checkGroupSize(recheck_, "recheck_flagged", recheck_group_);
    kernels_width_ = d;
  }

  void setVocabulary(const Vocabulary& vocabulary) override {
    if (vocabulary.id() == vocabulary_id_) return;
    vocabulary_id_ = 0;
    const auto& c = vocabulary.centroids();
    const int k = vocabulary.size();
    const int d = vocabulary.dimension();
    k_padded_ = static_cast<int>(roundUp(k, block_words_));
    const std::size_t d_padded = roundUp(d, tiles_.depth);
    // Transposed, zero-padded words, and squared norms in float64 rounded once (+inf for padding
    // words, so they never win and never come within the margin).
    std::vector<float> words_t(d_padded * k_padded_, 0.0f);
    std::vector<float> norms(k_padded_, std::numeric_limits<float>::infinity());
    double max_norm = 0;
    for (int j = 0; j < k; ++j) {
      double norm = 0;
      for (int f = 0; f < d; ++f) {
        words_t[static_cast<std::size_t>(f) * k_padded_ + j] = c(j, f);
        norm += static_cast<double>(c(j, f)) * c(j, f);
      }
      norms[j] = static_cast<float>(norm);
      max_norm = std::max(max_norm, std::sqrt(norm));
    }
    max_norm_ = static_cast<float>(std::min<double>(max_norm, std::numeric_limits<float>::max()));
    auto upload = [&](const float* data, std::size_t count) {
      return cl::Buffer(device_.context(), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof(float) * count,
                        const_cast<float*>(data));
    };
    words_t_ = upload(words_t.data(), words_t.size());
    norms_ = upload(norms.data(), norms.size());
    n_words_ = k;
    vocabulary_id_ = vocabulary.id();
  }

  std::uint64_t extraBytes(int n, int d, const Vocabulary& vocabulary) const override {
    const std::uint64_t k_padded = roundUp(vocabulary.size(), block_words_);
    const std::uint64_t words = sizeof(float) * (roundUp(d, tiles_.depth) * k_padded + k_padded);
    return words + sizeof(cl_int) * (static_cast<std::uint64_t>(n) + 1);
  }

  void enqueue(cl::CommandQueue& queue, const DeviceBatch& batch, SearchEvents& events) override {
    const int n = batch.n;
    cl::Buffer& flagged = flagged_.ensure(device_.context(), sizeof(cl_int) * n, CL_MEM_READ_WRITE);
    cl::Buffer& count = count_.ensure(device_.context(), sizeof(cl_int), CL_MEM_READ_WRITE);
    queue.enqueueFillBuffer(count, cl_int{0}, 0, sizeof(cl_int));

    int a = 0;
    tiled_.setArg(a++, batch.descriptors);
    tiled_.setArg(a++, cl_int{n});
    tiled_.setArg(a++, cl_int{batch.row_base});
    tiled_.setArg(a++, words_t_);
    tiled_.setArg(a++, norms_);
    tiled_.setArg(a++, cl_int{n_words_});
    tiled_.setArg(a++, cl_int{k_padded_});
    tiled_.setArg(a++, cl_float{max_norm_});
    tiled_.setArg(a++, batch.offsets);
    tiled_.setArg(a++, cl_int{batch.images});
    tiled_.setArg(a++, batch.best_word);
    tiled_.setArg(a++, batch.histograms);
    tiled_.setArg(a++, flagged);
    tiled_.setArg(a++, count);
    const std::size_t groups = (static_cast<std::size_t>(n) + block_rows_ - 1) / block_rows_;
    events.kernels.emplace_back();
    queue.enqueueNDRangeKernel(tiled_, cl::NullRange, cl::NDRange(groups * threads_), cl::NDRange(threads_),
                               nullptr, &events.kernels.back());

    // A fixed grid that loops over the flagged rows, kRecheckRows at a time: the count stays on the
    // device. Usually few rows are flagged (0.2% of uniform random rows: ~2,000 of 1M), and groups
    // beyond the count return at once; 32 groups per compute unit give each group one turn.
    a = 0;
    recheck_.setArg(a++, batch.descriptors);
    recheck_.setArg(a++, cl_int{batch.row_base});
    recheck_.setArg(a++, words_t_);
    recheck_.setArg(a++, cl_int{n_words_});
    recheck_.setArg(a++, cl_int{k_padded_});
    recheck_.setArg(a++, batch.offsets);
    recheck_.setArg(a++, cl_int{batch.images});
    recheck_.setArg(a++, batch.best_word);
    recheck_.setArg(a++, batch.histograms);
    recheck_.setArg(a++, flagged);
    recheck_.setArg(a++, count);
    recheck_.setArg(a++, cl::Local(sizeof(float) * kRecheckRows * batch.d));
    recheck_.setArg(a++, cl::Local(sizeof(float) * kRecheckRows * recheck_group_));
    recheck_.setArg(a++, cl::Local(sizeof(cl_int) * kRecheckRows * recheck_group_));
    const std::size_t recheck_groups = std::min<std::size_t>(
        (n + kRecheckRows - 1) / kRecheckRows, std::size_t{32} * std::max(1u, device_.info().compute_units));
    events.recheck.emplace_back();
    queue.enqueueNDRangeKernel(recheck_, cl::NullRange, cl::NDRange(recheck_groups * recheck_group_),
                               cl::NDRange(recheck_group_), nullptr, &events.recheck.back());
    queue.enqueueReadBuffer(count, CL_FALSE, 0, sizeof(cl_int), &rechecked_.emplace_back(0));
  }

  void startCall() override { rechecked_.clear(); }
  std::int64_t rechecked() const override {
    std::int64_t total = 0;
    for (cl_int count : rechecked_) total += count;
    return total;
  }

 private:
  // kernels/tiled.cl's local array: the larger of two stages of chunks (descriptors with their
  // padded pitch, words) and the per-row reduction of the two minima and the word.
  std::uint64_t localBytes() const {
    const std::uint64_t tiles = 2ull * tiles_.depth * (block_rows_ + 4 + block_words_);  // two stages
    const std::uint64_t reduce = 3ull * block_rows_ * tiles_.group_words;
    return sizeof(float) * std::max(tiles, reduce);
  }

  void checkGroupSize(const cl::Kernel& kernel, const char* name, int asked) const {
    const auto limit = kernel.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(device_.device());
    if (static_cast<std::size_t>(asked) > limit)
      throw CapacityError("kernel '" + std::string(name) + "' can run at most " + std::to_string(limit) +
                          " work-items per group on " + device_.info().name + ", asked for " +
                          std::to_string(asked) + (name == std::string("histogram_tiled")
                                                       ? ": choose smaller tile sizes"
                                                       : ": use a smaller work-group size"));
  }

  DeviceContext& device_;
  ProgramCache& programs_;
  TileSizes tiles_;
  int threads_;
  int block_rows_;
  int block_words_;
  int recheck_group_;
  std::string extra_options_;

  int kernels_width_ = -1;
  cl::Kernel tiled_;
  cl::Kernel recheck_;

  std::uint64_t vocabulary_id_ = 0;
  int n_words_ = 0;
  int k_padded_ = 0;
  float max_norm_ = 0;
  cl::Buffer words_t_, norms_;
  GrowingBuffer flagged_, count_;
  std::deque<cl_int> rechecked_;  // one count per batch of the call (a deque: stable addresses)
};

}  // namespace

std::unique_ptr<DeviceSearch> makeTiledSearch(DeviceContext& device, const HistogrammerConfig& config) {
  return std::make_unique<TiledSearch>(device, config);
}

}  // namespace bovw::detail
