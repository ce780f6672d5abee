#include <bovw/image_io.hpp>
#include <bovw/image_pipeline.hpp>
#include <bovw/image_search.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
int main(int argc, char** argv) {
  bovw::ImageSearchOptions o; o.histogrammer.backend = bovw::Backend::OpenMPTiled;
  auto t0 = std::chrono::steady_clock::now();
  bovw::ImageSearch db = bovw::ImageSearch::open(argv[1], o);
  std::vector<bovw::ImageWords> qs;
  for (auto& p : bovw::listImages(argv[2])) qs.push_back(db.words(bovw::loadImage(p)));
  int verify = argc > 3 ? atoi(argv[3]) : 50; int rounds = argc > 4 ? atoi(argv[4]) : 3;
  bovw::SearchOptions so; so.top = 10; so.verify = verify;
  if (argc > 5) so.scoring = bovw::parseScoringOptions(argv[5]);
  db.search(qs[0], so);
  fprintf(stderr, "open+words %.1f s\n", std::chrono::duration<double>(std::chrono::steady_clock::now()-t0).count());
  std::vector<double> ms;
  for (int r = 0; r < rounds; ++r) for (auto& q : qs) {
    auto t = std::chrono::steady_clock::now(); db.search(q, so);
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now()-t).count());
  }
  double s = 0; for (double m : ms) s += m; std::sort(ms.begin(), ms.end());
  printf("mean %.2f ms p50 %.2f p99 %.2f (%zu)\n", s/ms.size(), ms[ms.size()/2], ms[ms.size()*99/100], ms.size());
}
