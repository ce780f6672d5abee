// Hamming searches beside a writer: ImageDatabase with keypoints, K words, N images of F features;
// R reader threads query by Hamming embedding without pause; then the same with one writer adding
// images one at a time. Reports searches/s alone and beside the writer, adds/s and add latency.
#include <bovw/image_database.hpp>
#include <bovw/scoring.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <thread>
using Clock = std::chrono::steady_clock;
using namespace bovw;
static double sec(Clock::time_point a) { return std::chrono::duration<double>(Clock::now() - a).count(); }
int main(int argc, char** argv) {
  const int K = atoi(argv[1]), N = atoi(argv[2]), F = atoi(argv[3]), R = atoi(argv[4]);
  const double seconds = atof(argv[5]);
  std::mt19937_64 rng(1);
  Descriptors centroids = Descriptors::Random(K, 64);
  ImageDatabase db(Vocabulary(centroids, DescriptorType::parse("surf64")), FeatureSpec("surf"), DatabaseOptions{true});
  std::uniform_int_distribution<std::int32_t> word(0, K - 1);
  auto image = [&](std::mt19937_64& g) {
    ImageWords im;
    im.image_size = {640, 480};
    for (int i = 0; i < F; ++i) {
      im.points.emplace_back(float(g() % 640), float(g() % 480));
      im.words.push_back(std::uniform_int_distribution<std::int32_t>(0, K - 1)(g));
      im.signatures.push_back(g());
    }
    return im;
  };
  std::vector<ImageWords> queries;
  auto t0 = Clock::now();
  for (int n = 0; n < N; ++n) {
    ImageWords im = image(rng);
    if (n % (N / 50) == 0) {
      ImageWords q = im;
      for (auto& s : q.signatures) s ^= std::uint64_t{1} << (rng() % 64);
      queries.push_back(q);
    }
    db.add("i" + std::to_string(n), im);
  }
  std::printf("built %d images in %.1f s\n", N, sec(t0));
  ScoringOptions hamming;
  hamming.similarity = Scoring::Hamming;
  for (int phase = 0; phase < 2; ++phase) {
    std::atomic<bool> stop{false};
    std::atomic<long> searches{0};
    std::vector<std::thread> readers;
    for (int r = 0; r < R; ++r)
      readers.emplace_back([&, r] {
        std::size_t i = r;
        while (!stop) {
          auto res = db.query(queries[i++ % queries.size()], 10, hamming);
          if (res.empty()) std::abort();
          ++searches;
        }
      });
    std::vector<double> adds;
    std::mt19937_64 wrng(99);
    auto start = Clock::now();
    if (phase == 1) {
      int n = N;
      while (sec(start) < seconds) {
        ImageWords im = image(wrng);
        auto a = Clock::now();
        db.add("w" + std::to_string(n++), im);
        adds.push_back(sec(a) * 1e3);
      }
    } else {
      std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
    }
    stop = true;
    for (auto& t : readers) t.join();
    const double took = sec(start);
    std::printf("%s: %.1f searches/s", phase ? "beside a writer" : "alone", searches / took);
    if (!adds.empty()) {
      std::sort(adds.begin(), adds.end());
      std::printf(", %.1f adds/s, add p50 %.1f ms p99 %.1f ms max %.1f ms", adds.size() / took, adds[adds.size() / 2],
                  adds[std::min(adds.size() - 1, size_t(0.99 * adds.size()))], adds.back());
    }
    std::printf("\n");
  }
}
