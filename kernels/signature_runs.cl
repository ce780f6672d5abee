// Hamming-embedding scoring on the device (src/opencl/opencl_resident_signatures.cpp): a query's words'
// signature lists, resident in device memory, are scanned one work-item per stored feature, and each
// image run (an image's features of one word, side by side in the list) with a feature within the
// threshold of one of the word's query features is scored by the first such feature's work-item:
// the same sum as HammingScorer::pairSum (src/retrieval/hamming_scorer.cpp) gives on the host, in
// double precision and in the same order (no contraction into fused multiply-adds: sqrt and division
// are correctly rounded in OpenCL's double precision), so that the host adds the very same numbers.
//
// tasks: the query's words held on the device, `task_count` of them, laid out as four arrays of
// task_count (+ 1 for the second) unsigned ints:
//   first[t]        where the word's list begins in the arena (ids, signatures)
//   start[t]        the task's first work-item; start[task_count] is the number of work-items
//   query_begin[t], query_end[t]   its features among `query`
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL FP_CONTRACT OFF

// Whether `signature` lies within `threshold` bits of one of query[begin, end).
inline bool within(ulong signature, __global const ulong* query, uint begin, uint end, uint threshold) {
  for (uint a = begin; a < end; ++a)
    if (popcount(query[a] ^ signature) <= threshold) return true;
  return false;
}

__kernel void signature_runs(__global const uint* ids, __global const ulong* signatures, __global const uint* tasks,
                             uint task_count, __global const ulong* query, __global const double* weights,
                             uint threshold, uint id_limit, __global uint* run_count, uint run_capacity,
                             __global uint* run_word, __global uint* run_id, __global uint* run_features,
                             __global double* run_pairs) {
  __global const uint* first = tasks;
  __global const uint* start = tasks + task_count;
  __global const uint* query_begin = start + task_count + 1;
  __global const uint* query_end = query_begin + task_count;
  const uint item = get_global_id(0);
  if (item >= start[task_count]) return;
  uint low = 0, high = task_count;  // start[low] <= item < start[high]
  while (high - low > 1) {
    const uint middle = low + (high - low) / 2;
    if (start[middle] <= item) low = middle;
    else high = middle;
  }
  const uint t = low, qb = query_begin[t], qe = query_end[t];
  __global const uint* list_ids = ids + first[t];
  __global const ulong* list = signatures + first[t];
  const uint length = start[t + 1] - start[t], at = item - start[t];
  if (!within(list[at], query, qb, qe, threshold)) return;
  const uint id = list_ids[at];
  // Only the run's first feature within the threshold scores it.
  uint begin = at;
  while (begin > 0 && list_ids[begin - 1] == id) {
    --begin;
    if (within(list[begin], query, qb, qe, threshold)) return;
  }
  uint end = at + 1;
  while (end < length && list_ids[end] == id) ++end;
  if (id >= id_limit) return;
  // pairSum over the run's features from `at` (none before it matches): per query feature a, the
  // run's features within the threshold of it; per such feature b, the query features within the
  // threshold of b.
  double sum = 0.0;
  for (uint a = qb; a < qe; ++a) {
    uint per_query = 0;
    for (uint b = at; b < end; ++b) per_query += popcount(query[a] ^ list[b]) <= threshold;
    if (per_query == 0) continue;
    for (uint b = at; b < end; ++b) {
      const uint h = (uint)popcount(query[a] ^ list[b]);
      if (h > threshold) continue;
      uint per_image = 0;
      for (uint c = qb; c < qe; ++c) per_image += popcount(query[c] ^ list[b]) <= threshold;
      sum += weights[h] / sqrt((double)per_query * (double)per_image);
    }
  }
  const uint slot = atomic_inc(run_count);
  if (slot >= run_capacity) return;  // the host sees the count, makes room and runs again
  run_word[slot] = t;
  run_id[slot] = id;
  run_features[slot] = end - begin;
  run_pairs[slot] = sum;
}

// Copies staged features into their places in the arena: segment s moves count[s] features from
// `from[s]` in the staging arrays to `to[s]` in the arena, one work-item per feature of the largest.
__kernel void scatter_segments(__global const uint* staged_ids, __global const ulong* staged_signatures,
                               __global const uint* segments, uint segment_count, __global uint* ids,
                               __global ulong* signatures) {
  __global const uint* from = segments;
  __global const uint* to = segments + segment_count;
  __global const uint* count = to + segment_count;
  const uint s = get_global_id(1);
  if (s >= segment_count) return;
  for (uint i = get_global_id(0); i < count[s]; i += get_global_size(0)) {
    ids[to[s] + i] = staged_ids[from[s] + i];
    signatures[to[s] + i] = staged_signatures[from[s] + i];
  }
}
