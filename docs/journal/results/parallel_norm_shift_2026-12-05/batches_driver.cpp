// batches_driver DB N B: opens a live database as `bovw add` opens it (PostingMemory::Mapped), then
// adds B batches of N synthetic images (the bench's images, names new in each run), one durable
// write each, and prints each batch's time. The first batch after an open also copies out every list
// it changes (read in place until then); the later ones are a long-running writer's.
#include <bovw/live_database.hpp>
#include "synthetic_images.hpp"
#include <unistd.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
using Clock = std::chrono::steady_clock;
static double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }
int main(int argc, char** argv) {
  const std::string path = argv[1];
  const std::size_t n = std::atol(argv[2]), batches = std::atol(argv[3]);
  auto t = Clock::now();
  bovw::LiveDatabase live = bovw::LiveDatabase::open(path, bovw::PostingMemory::Mapped);
  std::printf("open %.2f s;", since(t));
  SyntheticImages gen(65536, 19);
  const std::string run = "batches" + std::to_string(::getpid()) + "-";
  for (std::size_t b = 0; b < batches; ++b) {
    std::vector<bovw::NamedImageWords> batch;
    for (std::size_t i = 0; i < n; ++i) {
      bovw::NamedImageWords named{run + std::to_string(b) + "/" + std::to_string(i) + ".jpg", {}};
      for (const auto& [w, c] : gen.next()) named.words.words.insert(named.words.words.end(), c, w);
      batch.push_back(std::move(named));
    }
    t = Clock::now();
    live.add(batch);
    std::printf(" batch %zu %.2f s;", b + 1, since(t));
  }
  std::printf("\n");
}
