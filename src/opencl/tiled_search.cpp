// bovw's tiled kernel on the host side: tile sizes (checked; chosen in device_tuning.cpp), the
// words in the layouts kernels/tiled.cl reads (transposed and padded, and their squared norms), and
// the two launches: the fused tiled pass, then the re-check
// of the rows it flagged.
#include "opencl/device_search.hpp"
#include "opencl/exact_recheck.hpp"

#include <bovw/error.hpp>

#include <algorithm>

namespace bovw::detail {

namespace {

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
        recheck_(device, config.work_group_size),
        extra_options_(config.build_options) {
    const std::uint64_t local_bytes = localBytes();
    if (local_bytes > device.info().local_memory)
      throw CapacityError("tile sizes " + tileText(tiles_) + " need " + std::to_string(local_bytes) +
                          " bytes of local memory; " + device.info().name + " has " +
                          std::to_string(device.info().local_memory));
  }

  std::string describe() const override {
    return "tiled " + tileText(tiles_) + ", re-check work-group " + std::to_string(recheck_.groupSize());
  }

  void prepare(int d) override {
    if (d == kernels_width_) return;
    const std::string options =
        "-cl-std=CL1.2 -DBOVW_D=" + std::to_string(d) + " -DBOVW_TM=" + std::to_string(tiles_.rows_per_item) +
        " -DBOVW_TN=" + std::to_string(tiles_.words_per_item) + " -DBOVW_WGR=" + std::to_string(tiles_.group_rows) +
        " -DBOVW_WGC=" + std::to_string(tiles_.group_words) + " -DBOVW_BK=" + std::to_string(tiles_.depth) + recheck_.options(d) + " " +
        extra_options_;
    tiled_ = programs_.kernel("tiled", "histogram_tiled", options);
    const auto limit = tiled_.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(device_.device());
    if (static_cast<std::size_t>(threads_) > limit)
      throw CapacityError("kernel 'histogram_tiled' can run at most " + std::to_string(limit) +
                          " work-items per group on " + device_.info().name + ", asked for " +
                          std::to_string(threads_) + ": choose smaller tile sizes");
    recheck_.prepare(options);
    kernels_width_ = d;
  }

  void setVocabulary(const Vocabulary& vocabulary) override {
    if (vocabulary.id() == vocabulary_id_) return;
    vocabulary_id_ = 0;
    words_ = uploadResidentWords(device_.context(), vocabulary, static_cast<int>(roundUp(vocabulary.size(), block_words_)),
                                 static_cast<int>(roundUp(vocabulary.dimension(), tiles_.depth)));
    vocabulary_id_ = vocabulary.id();
  }

  std::uint64_t extraBytes(int n, int d, const Vocabulary& vocabulary) const override {
    const std::uint64_t k_padded = roundUp(vocabulary.size(), block_words_);
    const std::uint64_t words = sizeof(float) * (roundUp(d, tiles_.depth) * k_padded + k_padded);
    return words + sizeof(cl_int) * (static_cast<std::uint64_t>(n) + 1);
  }

  void enqueue(cl::CommandQueue& queue, const DeviceBatch& batch, SearchEvents& events) override {
    const int n = batch.n;
    recheck_.begin(queue, n);
    int a = 0;
    tiled_.setArg(a++, batch.descriptors);
    tiled_.setArg(a++, cl_int{n});
    tiled_.setArg(a++, cl_int{batch.row_base});
    tiled_.setArg(a++, words_.words_t);
    tiled_.setArg(a++, words_.norms);
    tiled_.setArg(a++, cl_int{words_.n_words});
    tiled_.setArg(a++, cl_int{words_.k_padded});
    tiled_.setArg(a++, cl_float{words_.max_norm});
    tiled_.setArg(a++, batch.offsets);
    tiled_.setArg(a++, cl_int{batch.images});
    tiled_.setArg(a++, batch.best_word);
    tiled_.setArg(a++, batch.histograms);
    tiled_.setArg(a++, recheck_.flagged());
    tiled_.setArg(a++, recheck_.count());
    const std::size_t groups = (static_cast<std::size_t>(n) + block_rows_ - 1) / block_rows_;
    events.kernels.emplace_back();
    queue.enqueueNDRangeKernel(tiled_, cl::NullRange, cl::NDRange(groups * threads_), cl::NDRange(threads_),
                               nullptr, &events.kernels.back());
    recheck_.enqueue(queue, batch, words_, events);
  }

  void startCall() override { recheck_.startCall(); }
  std::int64_t rechecked() const override { return recheck_.rechecked(); }
  std::int64_t fullyRechecked() const override { return recheck_.fullyRechecked(); }

 private:
  // kernels/tiled.cl's local array: the larger of two stages of chunks (descriptors with their
  // padded pitch, words) and the per-row reduction of the two minima and the word.
  std::uint64_t localBytes() const {
    const std::uint64_t tiles = 2ull * tiles_.depth * (block_rows_ + 4 + block_words_);  // two stages
    const std::uint64_t reduce = 3ull * block_rows_ * tiles_.group_words;
    return sizeof(float) * std::max(tiles, reduce);
  }

  DeviceContext& device_;
  ProgramCache& programs_;
  TileSizes tiles_;
  int threads_;
  int block_rows_;
  int block_words_;
  ExactRecheck recheck_;
  std::string extra_options_;

  int kernels_width_ = -1;
  cl::Kernel tiled_;

  std::uint64_t vocabulary_id_ = 0;
  ResidentWords words_;
};

}  // namespace

std::unique_ptr<DeviceSearch> makeTiledSearch(DeviceContext& device, const HistogrammerConfig& config) {
  return std::make_unique<TiledSearch>(device, config);
}

}  // namespace bovw::detail
