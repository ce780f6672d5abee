// A uniform, seeded sample of many images' descriptors that does not depend on how the images are
// split between ranks, workers or batches: every descriptor gets a key, a bijective hash of the seed
// and its position (image number in the whole list, row in the image), and the sample is the
// max_descriptors descriptors with the smallest keys (a bottom-k sample: uniform, without
// replacement). One pass; each rank keeps at most max_descriptors candidates. Distributed, the ranks
// agree on the k-th smallest key by a binary search over the key range (64 allreduces of one
// integer) and keep their candidates at or below it.
#include <bovw/error.hpp>
#include <bovw/image_pipeline.hpp>

#include <algorithm>
#include <queue>
#include <utility>

namespace bovw {

namespace {

constexpr int kRowBits = 24;  // rows per image below 2^24 (a 6000 x 4000 photo gives ~200,000)

// SplitMix64's finalizer (Steele, Lea & Flood 2014): a bijection of the 64-bit integers.
std::uint64_t mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

struct Candidate {
  std::uint64_t key;
  std::uint64_t position;  // image << kRowBits | row: the sample's order
  Eigen::Index slot;       // its row in the candidates' storage
};

// The `keep` candidates with the smallest keys seen so far, in a max-heap on the key.
class BottomK {
 public:
  BottomK(std::int64_t keep, int width) : keep_(std::max<std::int64_t>(keep, 0)), rows_(keep_, width) {}

  void offer(std::uint64_t key, std::uint64_t position, const float* row) {
    Eigen::Index slot;
    if (static_cast<std::int64_t>(heap_.size()) < keep_) {
      slot = static_cast<Eigen::Index>(heap_.size());
    } else {
      if (keep_ == 0 || key >= heap_.front().key) return;
      std::pop_heap(heap_.begin(), heap_.end(), byKey);
      slot = heap_.back().slot;
      heap_.pop_back();
    }
    std::copy(row, row + rows_.cols(), rows_.row(slot).data());
    heap_.push_back({key, position, slot});
    std::push_heap(heap_.begin(), heap_.end(), byKey);
  }

  // The candidates' keys, ascending (for counting those at or below a key by binary search).
  std::vector<std::uint64_t> sortedKeys() const {
    std::vector<std::uint64_t> keys;
    keys.reserve(heap_.size());
    for (const Candidate& c : heap_) keys.push_back(c.key);
    std::sort(keys.begin(), keys.end());
    return keys;
  }

  // The candidates with a key <= `limit`, in position order.
  Descriptors upTo(std::uint64_t limit) const {
    std::vector<Candidate> kept;
    for (const Candidate& c : heap_)
      if (c.key <= limit) kept.push_back(c);
    std::sort(kept.begin(), kept.end(), [](const Candidate& a, const Candidate& b) { return a.position < b.position; });
    Descriptors out(static_cast<Eigen::Index>(kept.size()), rows_.cols());
    for (std::size_t i = 0; i < kept.size(); ++i) out.row(static_cast<Eigen::Index>(i)) = rows_.row(kept[i].slot);
    return out;
  }

 private:
  static bool byKey(const Candidate& a, const Candidate& b) { return a.key < b.key; }
  std::int64_t keep_;
  Descriptors rows_;
  std::vector<Candidate> heap_;
};

// The smallest key t with at least `wanted` candidates <= t over all ranks (keys are distinct).
std::uint64_t sharedThreshold(Communicator& ranks, const BottomK& candidates, std::int64_t wanted) {
  const std::vector<std::uint64_t> keys = candidates.sortedKeys();
  const auto countUpTo = [&](std::uint64_t key) {
    return static_cast<std::int64_t>(std::upper_bound(keys.begin(), keys.end(), key) - keys.begin());
  };
  std::uint64_t low = 0, high = ~std::uint64_t{0};
  while (low < high) {
    const std::uint64_t middle = low + (high - low) / 2;
    if (sumOverRanks(ranks, countUpTo(middle)) >= wanted) high = middle;
    else low = middle + 1;
  }
  return low;
}

}  // namespace

DescriptorSample sampleDescriptors(const std::vector<std::string>& paths, const FeatureExtractor& extractor,
                                   std::int64_t max_descriptors, unsigned long long seed,
                                   const PipelineOptions& options) {
  return sampleDescriptors(paths, 0, extractor, max_descriptors, seed, options, singleProcess());
}

DescriptorSample sampleDescriptors(const std::vector<std::string>& paths, std::int64_t first_image,
                                   const FeatureExtractor& extractor, std::int64_t max_descriptors,
                                   unsigned long long seed, const PipelineOptions& options, Communicator& ranks) {
  DescriptorSample sample;
  BottomK candidates(max_descriptors, extractor.descriptorSize());
  const std::uint64_t salt = mix(seed);
  std::int64_t seen = 0;
  sample.failures = extractInBatches(paths, extractor, options, [&](const ExtractedBatch& batch) {
    for (std::size_t i = 0; i + 1 < batch.offsets.size(); ++i) {
      const auto image = static_cast<std::uint64_t>(first_image) + batch.first + i;
      const std::int64_t rows = batch.offsets[i + 1] - batch.offsets[i];
      if (rows >= (std::int64_t{1} << kRowBits))
        throw CapacityError("'" + paths[batch.first + i] + "': " + std::to_string(rows) +
                            " descriptors in one image; sampling numbers at most 2^24 per image");
      for (std::int64_t row = 0; row < rows; ++row) {
        const std::uint64_t position = image << kRowBits | static_cast<std::uint64_t>(row);
        candidates.offer(mix(position + salt), position,
                         batch.descriptors.row(static_cast<Eigen::Index>(batch.offsets[i] + row)).data());
      }
      seen += rows;
    }
  });
  sample.seen = sumOverRanks(ranks, seen);
  const std::int64_t wanted = std::min(sample.seen, std::max<std::int64_t>(max_descriptors, 0));
  sample.descriptors = wanted > 0 ? candidates.upTo(sharedThreshold(ranks, candidates, wanted))
                                   : Descriptors(0, extractor.descriptorSize());
  return sample;
}

}  // namespace bovw
