// What Hamming-embedding scoring costs against the bag of words as a database grows (issue 26: which
// scoring is the default). Synthetic images as in the live-database benchmark (synthetic_images.hpp),
// each feature with a random 64-bit signature; a query is an indexed image with 30% of its features
// dropped and every signature bit of the others flipped with probability 0.1 (about 6 bits, a true
// pair's distance), and seen through one random rotation and change of scale (its keypoints' angles
// and sizes; every image's are random, drawn from a generator of their own so that the images and
// signatures stay those of the runs before sizes and angles were added). For each image count it
// reports, top 10, one thread, after warm-up queries: the p50 / p99 query time of intersection, of
// hamming20+log and of hamming20+log+wgc, and how often each ranks the query's source image first.
//
// Usage: bovw_hamming_scoring_bench [--images 1000,10000] [--words 1000] [--queries 100] [--seed 1]
#include "synthetic_images.hpp"

#include <bovw/image_database.hpp>
#include <bovw/scoring.hpp>

#include <CLI/CLI.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
constexpr std::size_t kTop = 10;
constexpr int kSide = 1000;

double percentile(std::vector<double> values, double p) {
  std::sort(values.begin(), values.end());
  return values[std::min(values.size() - 1, static_cast<std::size_t>(p * static_cast<double>(values.size())))];
}

bovw::ImageWords featuresOf(const std::vector<std::pair<int, int>>& image, std::mt19937_64& rng,
                            std::mt19937_64& geometry) {
  bovw::ImageWords words;
  words.image_size = {kSide, kSide};
  std::uniform_real_distribution<float> anywhere(0.0f, kSide - 1.0f), angle(0.0f, 359.9f), octaves(1.0f, 6.0f);
  for (const auto& [w, c] : image)
    for (int i = 0; i < c; ++i) {
      words.points.emplace_back(anywhere(rng), anywhere(rng));
      words.words.push_back(w);
      words.signatures.push_back(rng());
      words.sizes.push_back(std::exp2(octaves(geometry)));
      words.angles.push_back(angle(geometry));
    }
  return words;
}

// The source's features, 30% dropped, each kept signature with every bit flipped with probability 0.1.
bovw::ImageWords queryOf(const bovw::ImageWords& source, std::mt19937_64& rng, std::mt19937_64& geometry) {
  bovw::ImageWords query;
  query.image_size = source.image_size;
  std::bernoulli_distribution keep(0.7), flip(0.1);
  const float rotation = std::uniform_real_distribution<float>(0.0f, 360.0f)(geometry);
  const float scale = std::exp2(std::uniform_real_distribution<float>(-1.0f, 1.0f)(geometry));
  for (std::size_t i = 0; i < source.words.size(); ++i) {
    if (!keep(rng)) continue;
    std::uint64_t signature = source.signatures[i];
    for (int bit = 0; bit < 64; ++bit)
      if (flip(rng)) signature ^= std::uint64_t{1} << bit;
    query.points.push_back(source.points[i]);
    query.words.push_back(source.words[i]);
    query.signatures.push_back(signature);
    query.sizes.push_back(source.sizes[i] * scale);
    query.angles.push_back(std::fmod(source.angles[i] + rotation, 360.0f));
  }
  return query;
}

void measure(const bovw::ImageDatabase& database, const std::vector<bovw::ImageWords>& queries,
             const std::vector<std::string>& sources, const bovw::ScoringOptions& options) {
  for (std::size_t i = 0; i < 3 && i < queries.size(); ++i) database.query(queries[i], kTop, options);  // warm-up
  std::vector<double> ms;
  std::size_t first = 0;
  for (std::size_t q = 0; q < queries.size(); ++q) {
    const auto start = Clock::now();
    const auto ranking = database.query(queries[q], kTop, options);
    ms.push_back(1e3 * std::chrono::duration<double>(Clock::now() - start).count());
    first += !ranking.empty() && ranking.front().name == sources[q];
  }
  std::printf("  %-18s p50 %8.3f ms  p99 %8.3f ms  source first %zu of %zu\n", bovw::toString(options).c_str(),
              percentile(ms, 0.5), percentile(ms, 0.99), first, queries.size());
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("Hamming-embedding scoring against the bag of words on synthetic images");
  std::vector<std::size_t> counts{1000, 10000};
  int words = 1000;
  std::size_t query_count = 100;
  std::uint64_t seed = 1;
  app.add_option("--images", counts, "image counts, comma-separated")->delimiter(',');
  app.add_option("--words", words, "vocabulary size K")->check(CLI::Range(2, 1 << 20));
  app.add_option("--queries", query_count, "queries per measurement")->check(CLI::PositiveNumber);
  app.add_option("--seed", seed, "random seed of the synthetic images");
  CLI11_PARSE(app, argc, argv);

  for (const std::size_t n : counts) {
    SyntheticImages synthetic(words, seed);
    std::mt19937_64 geometry(seed + 1000003);
    const bovw::Vocabulary vocabulary(bovw::Descriptors::Zero(words, 64), bovw::DescriptorType::parse("surf64"));
    bovw::ImageDatabase database(vocabulary, bovw::FeatureSpec("surf"), bovw::DatabaseOptions{true});
    std::vector<bovw::ImageWords> queries;
    std::vector<std::string> sources;
    const std::size_t every = std::max<std::size_t>(1, n / query_count);
    std::size_t keypoints = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const bovw::ImageWords image = featuresOf(synthetic.next(), synthetic.rng(), geometry);
      keypoints += image.words.size();
      database.add("image" + std::to_string(i), image);
      if (i % every == 0 && queries.size() < query_count) {
        queries.push_back(queryOf(image, synthetic.rng(), geometry));
        sources.push_back("image" + std::to_string(i));
      }
    }
    std::printf("%zu images, K = %d, %.0f features per image, %zu queries, top %zu:\n", n, words,
                static_cast<double>(keypoints) / static_cast<double>(n), queries.size(), kTop);
    measure(database, queries, sources, bovw::ScoringOptions{});
    measure(database, queries, sources, bovw::parseScoringOptions("hamming20+log"));
    measure(database, queries, sources, bovw::parseScoringOptions("hamming20+log+wgc"));
  }
  return 0;
}
