// Replacing images in a database with keypoints (issue 22: a PUT of an existing name), at the library:
// N synthetic images (bench/retrieval/synthetic_images.hpp, K words, ~830 features each with a random
// signature), then R replacements (remove the name, add it again with new features) one after
// another, alone and beside a thread that runs Hamming searches without pause (the lists it holds
// are what a replacement must copy). Prints replacements/s, their p50/p99, the searches done, and
// the Hamming query p50 before and after (the erased features a list may keep cost the query).
// Usage: replace_driver N R K
#include "synthetic_images.hpp"

#include <bovw/image_database.hpp>
#include <bovw/scoring.hpp>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double ms(Clock::duration d) { return 1e3 * std::chrono::duration<double>(d).count(); }

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<std::size_t>(p * static_cast<double>(v.size())))];
}

bovw::ImageWords featuresOf(const std::vector<std::pair<int, int>>& image, std::mt19937_64& rng) {
  bovw::ImageWords words;
  words.image_size = {1000, 1000};
  std::uniform_real_distribution<float> anywhere(0.0f, 999.0f);
  for (const auto& [w, c] : image)
    for (int i = 0; i < c; ++i) {
      words.points.emplace_back(anywhere(rng), anywhere(rng));
      words.words.push_back(w);
      words.signatures.push_back(rng());
      words.sizes.push_back(4.0f);
      words.angles.push_back(0.0f);
    }
  return words;
}

double queryP50(const bovw::ImageDatabase& db, const std::vector<bovw::ImageWords>& queries,
                const bovw::ScoringOptions& options) {
  std::vector<double> t;
  for (const auto& q : queries) {
    const auto start = Clock::now();
    db.query(q, 10, options);
    t.push_back(ms(Clock::now() - start));
  }
  return percentile(t, 0.5);
}

void replace(bovw::ImageDatabase& db, SyntheticImages& synthetic, std::size_t n, std::size_t r, const char* label,
             const std::vector<bovw::ImageWords>* search) {
  std::atomic<bool> stop{false};
  std::atomic<std::size_t> searches{0};
  const auto options = bovw::parseScoringOptions("hamming20+log");
  std::thread searcher;
  if (search)
    searcher = std::thread([&] {
      for (std::size_t i = 0; !stop; ++i) {
        db.query((*search)[i % search->size()], 10, options);
        ++searches;
      }
    });
  std::vector<double> each;
  const auto start = Clock::now();
  for (std::size_t i = 0; i < r; ++i) {
    const std::string name = "image" + std::to_string(synthetic.rng()() % n);
    const bovw::ImageWords words = featuresOf(synthetic.next(), synthetic.rng());
    const auto t0 = Clock::now();
    db.remove(name);
    db.add(name, words);
    each.push_back(ms(Clock::now() - t0));
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  stop = true;
  if (searcher.joinable()) searcher.join();
  std::printf("%-16s %zu replacements: %.1f /s, p50 %.2f ms, p99 %.2f ms; %zu searches beside\n", label, r,
              static_cast<double>(r) / seconds, percentile(each, 0.5), percentile(each, 0.99), searches.load());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: replace_driver N R K\n");
    return 2;
  }
  const std::size_t n = std::strtoull(argv[1], nullptr, 10), r = std::strtoull(argv[2], nullptr, 10);
  const int k = std::atoi(argv[3]);
  SyntheticImages synthetic(k, 1);
  const bovw::Vocabulary vocabulary(bovw::Descriptors::Zero(k, 64), bovw::DescriptorType::parse("surf64"));
  bovw::ImageDatabase db(vocabulary, bovw::FeatureSpec("surf"), bovw::DatabaseOptions{true});
  std::vector<bovw::ImageWords> queries;
  std::size_t features = 0;
  const auto built = Clock::now();
  for (std::size_t i = 0; i < n; ++i) {
    bovw::ImageWords words = featuresOf(synthetic.next(), synthetic.rng());
    features += words.words.size();
    if (i % (n / 50) == 0) queries.push_back(words);
    db.add("image" + std::to_string(i), words);
  }
  std::printf("%zu images, K = %d, %.0f features each, built in %.1f s\n", n, k,
              static_cast<double>(features) / static_cast<double>(n),
              std::chrono::duration<double>(Clock::now() - built).count());
  const auto options = bovw::parseScoringOptions("hamming20+log");
  std::printf("hamming query p50 before: %.2f ms\n", queryP50(db, queries, options));
  replace(db, synthetic, n, r, "alone", nullptr);
  replace(db, synthetic, n, r, "beside a search", &queries);
  std::printf("hamming query p50 after: %.2f ms\n", queryP50(db, queries, options));
  return 0;
}
