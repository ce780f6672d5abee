// strip_norms DB: erases the "norms" entry of a live database's checkpoint, leaving it as bovw wrote
// checkpoints before 2026-12-05 (issue 21: the "before" side of the kept-norms measurement, opened by
// the same library).
#include "live/lmdb_store.hpp"

#include <cstdio>

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  bovw::live_detail::LmdbEnvironment store(argv[1], false);
  bovw::live_detail::LmdbTransaction txn(store, true);
  const bool erased = txn.erase(store.tables().checkpoint, "norms");
  txn.commit();
  std::printf("%s\n", erased ? "norms erased" : "no norms entry");
  return erased ? 0 : 1;
}
