// The smallest use of the library: histograms of two images' descriptors against a vocabulary,
// on the default OpenCL device with the constant-memory kernel.
#include <bovw/error.hpp>
#include <bovw/histogrammer.hpp>

#include <iostream>

int main() {
  try {
    bovw::Vocabulary vocabulary(bovw::Descriptors::Random(16, 64));
    bovw::Descriptors descriptors = bovw::Descriptors::Random(1000, 64);
    bovw::DescriptorBatch batch(descriptors, {0, 600, 1000});  // image 0: rows 0-599, image 1: the rest

    bovw::HistogrammerConfig config;
    config.backend = bovw::Backend::OpenCL;
    config.variant = bovw::KernelVariant::ConstantCentroids;
    auto histogrammer = bovw::makeHistogrammer(config);
    bovw::Histograms histograms = histogrammer->compute(batch, vocabulary);
    std::cout << histogrammer->description() << "\n" << histograms << "\n";
  } catch (const bovw::Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
