// Issue 22, 2026-12-07: the library's verified search with the signatures scanned on the host or on
// the device (ImageSearchOptions::signatures), one thread, every query of a folder ROUNDS times, at
// verify 0 and 50. Writes every result (name and the score's bits) to RESULTS, so that the two
// places' rankings can be compared byte for byte (cmp).
// Usage: device_driver DB JPEGS ROUNDS host|device RESULTS
#include <bovw/image_io.hpp>
#include <bovw/image_pipeline.hpp>
#include <bovw/image_search.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

int main(int argc, char** argv) {
  if (argc != 6) {
    std::fprintf(stderr, "usage: device_driver DB JPEGS ROUNDS host|device RESULTS\n");
    return 2;
  }
  using clock = std::chrono::steady_clock;
  bovw::ImageSearchOptions options;
  options.histogrammer.backend = bovw::Backend::OpenMPTiled;  // the queries' features: not what is timed
  options.signatures = std::string(argv[4]) == "device" ? bovw::SignaturePlace::Device : bovw::SignaturePlace::Host;
  const auto opening = clock::now();
  const bovw::ImageSearch database = bovw::ImageSearch::open(argv[1], options);
  const double open_s = std::chrono::duration<double>(clock::now() - opening).count();
  std::vector<bovw::ImageWords> queries;
  for (const std::string& path : bovw::listImages(argv[2])) queries.push_back(database.words(bovw::loadImage(path)));
  const int rounds = std::atoi(argv[3]);
  std::FILE* results = std::fopen(argv[5], "w");
  std::printf("%s: open %.2f s, signatures on '%s'\n", argv[4], open_s, database.signatureScan().device.c_str());
  for (const std::size_t verify : {std::size_t{0}, std::size_t{50}}) {
    bovw::SearchOptions search;
    search.top = 10;
    search.verify = verify;
    database.search(queries[0], search);  // warm-up
    std::vector<double> ms;
    for (int r = 0; r < rounds; ++r)
      for (std::size_t q = 0; q < queries.size(); ++q) {
        const auto start = clock::now();
        const std::vector<bovw::SearchHit> found = database.search(queries[q], search);
        ms.push_back(std::chrono::duration<double, std::milli>(clock::now() - start).count());
        if (r > 0) continue;
        for (const bovw::SearchHit& hit : found) {
          unsigned long long bits;
          std::memcpy(&bits, &hit.bow_score, sizeof bits);
          std::fprintf(results, "%zu %zu %s %016llx %d\n", verify, q, hit.name.c_str(), bits, hit.inliers);
        }
      }
    double sum = 0;
    for (const double m : ms) sum += m;
    std::sort(ms.begin(), ms.end());
    std::printf("%s verify %zu: mean %.2f ms p50 %.2f p99 %.2f (%zu searches)\n", argv[4], verify, sum / ms.size(),
                ms[ms.size() / 2], ms[ms.size() * 99 / 100], ms.size());
  }
  std::fclose(results);
}
