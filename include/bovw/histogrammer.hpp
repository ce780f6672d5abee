// The Histogrammer: nearest visual word of each descriptor, and one K-bin histogram per image.
// One interface, five backends (Serial, OpenMP, OpenMPTiled, OpenCL with six kernel variants, and the
// approximate OpenMPApproximate), made by a factory; Auto, the default, picks one for the machine.
#pragma once

#include <bovw/descriptors.hpp>
#include <bovw/device.hpp>
#include <bovw/vocabulary.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace bovw {

enum class Backend {
  Serial,       // the golden reference on one thread
  OpenMP,       // the golden reference on all cores
  OpenMPTiled,  // ||c||^2 - 2 x.c blocked like a GEMM, with an exact re-check: same answers, faster
  OpenCL,       // one of the kernel variants below
  // APPROXIMATE: a FLANN hierarchical k-means tree over the words (a vocabulary tree, built once per
  // vocabulary) searched with a budget of `approximate_checks` words per descriptor, for large K on
  // the CPU. Its word may differ from the exact nearest one (recall below 1; docs/RETRIEVAL.md gives
  // measured figures); validation, histograms and ties among the words it checks (to the lower word)
  // follow the interface. Needs OpenCV (BOVW_WITH_OPENCV); otherwise makeHistogrammer refuses it.
  OpenMPApproximate,
  // AUTO (the default): the GPU where there is one, else the fastest exact CPU path, decided when a
  // histogrammer is made (resolveBackend below).
  Auto,
};

// The OpenCL kernels: the book chapter's five (GPU1..GPU5) and bovw's own tiled kernel; see
// kernels/ and docs/KERNELS.md.
enum class KernelVariant {
  Baseline,           // GPU1: one work-item per descriptor, row-major descriptors
  Coalesced,          // GPU2: descriptors transposed on the device first, coalesced loads
  Float4,             // GPU3: GPU2 with float4 arithmetic
  LocalDescriptors,   // GPU4: the work-group's descriptors staged in local memory
  ConstantCentroids,  // GPU5: GPU4 with the centroids in constant memory (chunked if too large)
  Tiled,              // ||c||^2 - 2 x.c as a register-tiled GEMM fused with the argmin and the
                      // histogram, close candidates re-checked with the direct sum (exact)
  TiledTF32,          // Tiled with the products on NVIDIA's TF32 tensor cores (mma.sync), every row
                      // certified by an error bound or re-checked exactly: same answers. Elsewhere
                      // the tensor cores are emulated (for tests; slow). Tiles: group_rows = warps,
                      // rows_per_item = 16-row tiles per warp, words_per_item = 8-word tiles per step
  TiledFP16,          // TiledTF32 on FP16 operands (mma.sync m16n8k16): TF32's 11-bit significand, so the
                      // same certificate, at twice the tensor cores' rate; a vocabulary outside FP16's
                      // range (|c| > 65504, or many values below 2^-14) runs on TF32 operands instead
  Auto,               // the device's variant in bovw's tuning table: Tiled on GPUs (see docs/PERFORMANCE.md)
};

// Tile sizes of the Tiled kernel (kernels/tiled.cl); 0 takes the device's default: the tuning
// file's when HistogrammerConfig::tuning_file is set, else bovw's tuning table's (docs/KERNELS.md). A work-group covers group_rows x rows_per_item descriptors against
// group_words x words_per_item words; `bovw-bench --tune` searches these. TiledTF32 reads them as
// its own shape: group_rows warps of rows_per_item 16-row tiles, words_per_item 8-word tiles per
// step (1, 2 or 4), depth 8-word tiles staged in local memory per chunk (1: none; group_words unused).
struct TileSizes {
  int rows_per_item = 0;   // TM: descriptors per work-item (a multiple of 4)
  int words_per_item = 0;  // TN: words per work-item (a multiple of 4)
  int group_rows = 0;      // work-items along the descriptors
  int group_words = 0;     // work-items along the words
  int depth = 0;           // BK: features per local-memory chunk (a multiple of 4)
};

struct HistogrammerConfig {
  Backend backend = Backend::Auto;
  KernelVariant variant = KernelVariant::Auto;
  // OpenCL device: "" uses $BOVW_DEVICE, else the first GPU, else the first CPU device.
  // Otherwise "P:D" (platform and device index), "gpu"/"cpu"/"accelerator", or a substring of
  // the device or platform name (case-insensitive).
  std::string device;
  int work_group_size = 64;     // OpenCL work-items per work-group (Tiled: of its re-check pass)
  TileSizes tiles;              // Tiled only
  // Tiled only: a tuning file (TuningRecord below) whose tile sizes replace the device's defaults
  // (fields of `tiles` that are set still win). Read when an OpenCL histogrammer is made; refused
  // with InvalidInput naming the file when it is malformed or was made on another device (tile
  // sizes do not carry over between devices).
  std::string tuning_file;
  int threads = 0;              // OpenMP threads; 0: all cores
  std::string build_options;    // extra OpenCL compiler options, appended to bovw's own
  // Device memory bovw may allocate, in bytes; 0: the device's global memory. Requests beyond it
  // fail with CapacityError before anything is allocated (useful on a shared GPU).
  std::uint64_t device_memory_limit = 0;
  // OpenCL: descriptors go to the device in chunks of this many rows, so that uploading chunk c+1
  // overlaps the search of chunk c: straight from the caller's memory when it is PinnedDescriptors
  // of this device (bovw/pinned_descriptors.hpp), else through pinned staging buffers that the host
  // fills first. 0: about 64 MiB per chunk.
  std::int64_t transfer_rows = 0;
  // OpenMPApproximate: words whose distance each descriptor's search computes (FLANN's `checks`) at
  // the least; more checks, higher recall, slower. The default's recall is measured in
  // docs/RETRIEVAL.md ("Large vocabularies"). Must be >= 1.
  int approximate_checks = 128;
};

// Where the time of one call went, in milliseconds. For OpenCL these come from profiling events;
// with the transfers overlapping the kernels, wall_ms is less than the sum of the stages.
struct StageTimes {
  double wall_ms = 0;       // the whole call, as the caller waits for it (host clock)
  double upload_ms = 0;     // host to device: descriptors (from pinned memory) and offsets
  double staging_ms = 0;    // host clock: copying descriptors into pinned staging (in wall_ms)
  std::int64_t staged_rows = 0;  // descriptors that went through staging: 0 from PinnedDescriptors
  double transpose_ms = 0;  // the on-device transpose (Coalesced, Float4, LocalDescriptors, ConstantCentroids)
  double kernel_ms = 0;     // nearest-word search and histogram (all vocabulary chunks)
  double download_ms = 0;   // device to host: assignments and histograms
  double recheck_ms = 0;    // Tiled: the exact re-check pass, part of kernel_ms
  std::int64_t rechecked_rows = 0;  // Tiled, TiledTF32: rows whose nearest word was settled by direct sums
  std::int64_t fully_rechecked_rows = 0;  // ... of which every word was summed (the rest: a few candidates)
};

class Histogrammer;

namespace detail {
// The device seam (src/opencl/resident_histograms.hpp): what a histogrammer that searches on an
// OpenCL device offers code holding rows there already. Internal to bovw.
class ResidentHistograms;
ResidentHistograms* residentHistogramsOf(Histogrammer& histogrammer);
}  // namespace detail

class Histogrammer {
 public:
  virtual ~Histogrammer() = default;
  Histogrammer(const Histogrammer&) = delete;
  Histogrammer& operator=(const Histogrammer&) = delete;

  // Nearest word of each descriptor. Ties go to the lower word index on every backend.
  std::vector<std::int32_t> assign(DescriptorsRef descriptors, const Vocabulary& vocabulary,
                                   StageTimes* times = nullptr);

  // One histogram per image of the batch (I x K), all images in one pass. If `assignments` is
  // given it receives the nearest word of every descriptor as well.
  Histograms compute(const DescriptorBatch& batch, const Vocabulary& vocabulary,
                     std::vector<std::int32_t>* assignments = nullptr, StageTimes* times = nullptr);

  // Human-readable name: backend, variant, device, work-group size.
  virtual std::string description() const = 0;

 protected:
  Histogrammer() = default;

  // Called with validated, non-empty input (N > 0, D equal, finite values, good offsets).
  // Writes N assignments and fills `histograms` (already sized I x K and zeroed).
  virtual void computeImpl(const DescriptorBatch& batch, const Vocabulary& vocabulary,
                           std::int32_t* assignments, Histograms& histograms, StageTimes& times) = 0;

 private:
  // The device seam, asked for through detail::residentHistogramsOf: null for a search on the host.
  friend detail::ResidentHistograms* detail::residentHistogramsOf(Histogrammer& histogrammer);
  virtual detail::ResidentHistograms* resident() { return nullptr; }
};

// Throws InvalidInput for a bad configuration, OpenCLError/InvalidInput if no device matches.
// Backend::Auto is resolved first (resolveBackend).
std::unique_ptr<Histogrammer> makeHistogrammer(const HistogrammerConfig& config = {});

// What Backend::Auto means among `devices` (listDevices()): OpenCL when the device that
// config.device picks ("": $BOVW_DEVICE, else the first GPU, else the first CPU device) is a GPU,
// the device SurfBackend::Auto extracts on, so that an image pipeline fuses SURF and histograms
// there; otherwise OpenMPTiled, the fastest exact CPU path (docs/PERFORMANCE.md, "CPU paths"),
// PoCL's CPU device included. Any other backend is returned as it is. The one place Auto is decided.
Backend resolveBackend(const HistogrammerConfig& config, const std::vector<DeviceInfo>& devices);
// The same among this machine's devices (none where OpenCL cannot list them).
Backend resolveBackend(const HistogrammerConfig& config);
// `config` with its backend resolved, for code that branches on the backend.
HistogrammerConfig withResolvedBackend(HistogrammerConfig config);

// Names used on the command line and in reports: "serial", "openmp", "openmp-tiled", "opencl",
// "openmp-ann", "auto";
// "baseline", "coalesced", "float4", "local", "constant", "tiled", "auto".
std::string_view toString(Backend backend);
std::string_view toString(KernelVariant variant);
// Throw InvalidInput listing the valid names when `name` is not one of them.
Backend parseBackend(std::string_view name);
KernelVariant parseKernelVariant(std::string_view name);
// "8,8,16,16,16": rows and words per work-item, work-items along rows and words, depth (the order
// of TileSizes' fields). parseTileSizes throws InvalidInput unless it gets five positive integers.
std::string toString(const TileSizes& tiles);
TileSizes parseTileSizes(std::string_view text);
// A tuning file: the tile sizes `bovw-bench --tune --save-tuning FILE` found fastest on one device,
// and what they were measured on. JSON, keys sorted:
//   {"d": 64, "date": "...", "device": "NVIDIA H100 80GB HBM3", "k": 1024, "n": 1048576, "tiles": "8,8,16,16,16"}
struct TuningRecord {
  std::string device;  // DeviceInfo::name of the device they were measured on
  TileSizes tiles;     // every field > 0
  std::int64_t n = 0;  // the problem measured: descriptors, words, width
  int k = 0;
  int d = 0;
  std::string date;
};
// Writes `record` atomically.
void saveTuningFile(const std::string& path, const TuningRecord& record);
// Throws IoError when the file cannot be opened, InvalidInput naming it when it is not JSON or its
// "device" and "tiles" are missing or malformed (the other fields are informative: absent is 0 / "").
TuningRecord loadTuningFile(const std::string& path);

// The concrete variants (every one but Auto), in the order above.
const std::vector<KernelVariant>& allKernelVariants();
// Every concrete backend (Auto is not one), the approximate one included: code that expects exact
// answers must skip Backend::OpenMPApproximate.
const std::vector<Backend>& allBackends();

}  // namespace bovw
