// A uniform, seeded sample of many images' descriptors (reservoir sampling, Vitter's algorithm R):
// every descriptor is kept with equal probability whatever the number of images, in one pass.
#include <bovw/image_pipeline.hpp>

#include <random>

namespace bovw {

DescriptorSample sampleDescriptors(const std::vector<std::string>& paths, const FeatureExtractor& extractor,
                                   std::int64_t max_descriptors, unsigned long long seed,
                                   const PipelineOptions& options) {
  DescriptorSample sample;
  const int width = extractor.descriptorSize();
  Descriptors reservoir(std::max<std::int64_t>(0, max_descriptors), width);
  std::mt19937_64 rng(seed);
  sample.failures = extractInBatches(paths, extractor, options, [&](const ExtractedBatch& batch) {
    for (Eigen::Index r = 0; r < batch.descriptors.rows(); ++r, ++sample.seen) {
      if (sample.seen < max_descriptors) {
        reservoir.row(sample.seen) = batch.descriptors.row(r);
        continue;
      }
      const std::int64_t j = std::uniform_int_distribution<std::int64_t>(0, sample.seen)(rng);
      if (j < max_descriptors) reservoir.row(j) = batch.descriptors.row(r);
    }
  });
  sample.descriptors = reservoir.topRows(std::min(sample.seen, max_descriptors));
  return sample;
}

}  // namespace bovw
