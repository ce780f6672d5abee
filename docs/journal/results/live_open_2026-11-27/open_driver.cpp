// Live-database open driver: makes (once) a live database of N synthetic images, then times open().
#include <bovw/live_database.hpp>
#include "synthetic_images.hpp"
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
using Clock = std::chrono::steady_clock;
int main(int argc, char** argv) {
  const std::size_t n = atol(argv[1]);
  const std::string path = argv[2];
  const int K = 65536;
  if (!std::filesystem::exists(path)) {
    SyntheticImages gen(K, 1);
    const bovw::Vocabulary vocabulary(bovw::Descriptors::Zero(K, 64), bovw::DescriptorType::parse("surf64"));
    bovw::LiveDatabase live = bovw::LiveDatabase::create(path, vocabulary, bovw::FeatureSpec("surf"));
    for (std::size_t b = 0; b < n; b += 1000) {
      std::vector<bovw::NamedImageWords> batch;
      for (std::size_t i = b; i < std::min(n, b + 1000); ++i) {
        bovw::NamedImageWords named{"images/" + std::to_string(i) + ".jpg", {}};
        for (const auto& [w, c] : gen.next()) named.words.words.insert(named.words.words.end(), c, w);
        batch.push_back(std::move(named));
      }
      live.add(batch);
    }
    printf("made %s\n", path.c_str());
  }
  for (int r = 0; r < (argc > 3 ? atoi(argv[3]) : 1); ++r) {
    auto t = Clock::now();
    bovw::LiveDatabase live = bovw::LiveDatabase::open(path);
    printf("open %.3f s, %zu images\n", std::chrono::duration<double>(Clock::now() - t).count(), (size_t)live.database().index().size());
  }
}
