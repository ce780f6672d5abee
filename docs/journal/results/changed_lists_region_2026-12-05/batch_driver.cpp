// batch_driver DB N: opens a live database (MAPPED set: PostingMemory::Mapped, as `bovw add` opens),
// then adds one batch of N synthetic images (the bench's images, names new in each run) and prints
// the open's and the batch's times: what `bovw add` of N images costs right after an open.
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
  const std::size_t n = std::atol(argv[2]);
  auto t = Clock::now();
  bovw::LiveDatabase live =
      bovw::LiveDatabase::open(path, getenv("MAPPED") ? bovw::PostingMemory::Mapped : bovw::PostingMemory::Copied);
  const double open = since(t);
  SyntheticImages gen(65536, 17);
  std::vector<bovw::NamedImageWords> batch;
  const std::string run = "batch" + std::to_string(::getpid()) + "/";
  for (std::size_t i = 0; i < n; ++i) {
    bovw::NamedImageWords named{run + std::to_string(i) + ".jpg", {}};
    for (const auto& [w, c] : gen.next()) named.words.words.insert(named.words.words.end(), c, w);
    batch.push_back(std::move(named));
  }
  t = Clock::now();
  live.add(batch);
  const double add = since(t);
  printf("open %.2f s, a batch of %zu added in %.2f s, together %.2f s\n", open, n, add, open + add);
}
