// Consumer of an installed bovw: histograms of a constructed batch whose answer is known.
#include <bovw/histogrammer.hpp>
#include <bovw/version.hpp>

#include <iostream>

int main() {
  // Word w is the constant vector w; descriptor i sits at word (i % 3) + 0.1, so it belongs to word i % 3.
  bovw::Descriptors words(3, 8);
  for (int w = 0; w < 3; ++w) words.row(w).setConstant(static_cast<float>(w));
  bovw::Descriptors x(7, 8);
  for (int i = 0; i < 7; ++i) x.row(i).setConstant(static_cast<float>(i % 3) + 0.1f);
  const bovw::Vocabulary vocabulary(words);
  auto histogrammer = bovw::makeHistogrammer({});
  const bovw::Histograms h = histogrammer->compute(bovw::DescriptorBatch(x, {0, 4, 7}), vocabulary);
  // Image 0 holds descriptors 0..3 -> words 0,1,2,0; image 1 holds 4..6 -> words 1,2,0.
  const bool ok = h(0, 0) == 2 && h(0, 1) == 1 && h(0, 2) == 1 && h(1, 0) == 1 && h(1, 1) == 1 && h(1, 2) == 1;
  std::cout << h << "\n" << (ok ? "consumer of bovw " BOVW_VERSION ": ok" : "consumer: WRONG histograms") << "\n";
  return ok ? 0 : 1;
}
