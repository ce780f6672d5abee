// Checkpoint driver: times LiveDatabase::open (one per process) or open + checkpoint().
#include <bovw/live_database.hpp>
#include "synthetic_images.hpp"
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
using Clock = std::chrono::steady_clock;
static double rss() { std::ifstream s("/proc/self/statm"); double a, b; s >> a >> b; return b * 4096; }
int main(int argc, char** argv) {
  const std::string path = argv[1];
  const std::string mode = argv[2];
  auto t = Clock::now();
  bovw::LiveDatabase live = bovw::LiveDatabase::open(path);
  const double open = std::chrono::duration<double>(Clock::now() - t).count();
  const auto& o = live.opening();
  printf("open %.3f s, %zu images, %llu postings, from %s%s, rss %.2f GB\n", open, (size_t)live.database().index().size(),
         (unsigned long long)live.database().index().postingCount(),
         o.checkpoint ? ("checkpoint " + std::to_string(*o.checkpoint)).c_str() : "records", o.refused.c_str(), rss() / 1e9);
  if (mode == "add") {
    const std::size_t n = atol(argv[3]);
    SyntheticImages gen(65536, 7);
    t = Clock::now();
    for (std::size_t b = 0; b < n; b += 1000) {
      std::vector<bovw::NamedImageWords> batch;
      for (std::size_t i = b; i < std::min(n, b + 1000); ++i) {
        bovw::NamedImageWords named{"more/" + std::to_string(i) + ".jpg", {}};
        for (const auto& [w, c] : gen.next()) named.words.words.insert(named.words.words.end(), c, w);
        batch.push_back(std::move(named));
      }
      live.add(batch);
    }
    printf("added %zu in %.3f s\n", n, std::chrono::duration<double>(Clock::now() - t).count());
  }
  if (mode == "checkpoint") {
    t = Clock::now();
    live.checkpoint();
    printf("checkpoint %.3f s\n", std::chrono::duration<double>(Clock::now() - t).count());
  }
}
