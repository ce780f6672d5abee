// How many threads a library loop may start from the calling thread: the OpenMP team the caller
// allows (one per core unless it asked for fewer: omp_set_num_threads or OMP_NUM_THREADS; `bovw serve`
// gives each request its share of the cores), one inside another parallel part, and one in a
// ThreadSanitizer build, which cannot follow Debian's uninstrumented libgomp: its start and end of a
// parallel part order nothing as far as the sanitizer knows (docs/SANITIZERS.md).
#pragma once

#include <algorithm>

#include <omp.h>

namespace bovw::detail {

#if defined(__SANITIZE_THREAD__)
constexpr bool kThreadSanitizer = true;
#else
constexpr bool kThreadSanitizer = false;
#endif

inline int teamThreads() {
  return omp_in_parallel() || kThreadSanitizer ? 1 : std::max(1, omp_get_max_threads());
}

}  // namespace bovw::detail
