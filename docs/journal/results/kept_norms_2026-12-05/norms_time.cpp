// norms_time DB: reads the checkpoint of a live database made by open_driver (K = 65,536) in place,
// then three times the default scoring's norms resumed from the checkpoint (readCheckpointNorms)
// against computed from every posting (issue 21, 2026-12-05).
#include "live/checkpoint.hpp"
#include "live/lmdb_store.hpp"
#include "index/incremental_norms.hpp"
#include <chrono>
#include <cstdio>
using Clock = std::chrono::steady_clock;
static double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }
int main(int, char** argv) {
  using namespace bovw::live_detail;
  LmdbEnvironment store(argv[1], false);
  LmdbTransaction txn(store, false);
  bovw::VocabularySignature v{65536, 64, bovw::DescriptorType::parse("surf64"), 0};
  auto t = Clock::now();
  auto cp = readCheckpoint(txn, store.tables().checkpoint, v, "db", nullptr, ListReading::InPlace);
  std::printf("checkpoint %.3f s\n", since(t));
  v.fingerprint = cp->index.vocabulary.fingerprint;
  for (int r = 0; r < 3; ++r) {
    t = Clock::now();
    auto n = readCheckpointNorms(txn, store.tables().checkpoint, cp->index, "db");
    std::printf("norms resumed %.3f s\n", since(t));
    t = Clock::now();
    bovw::index_detail::IncrementalNorms fresh(cp->index, bovw::ScoringOptions{});
    std::printf("norms fresh %.3f s\n", since(t));
  }
}
