// Which of a word's stored signatures lie within Hamming embedding's threshold of any of the query's
// signatures of that word: the scan that decides which images' features of the word are paired at
// all. Most are not (a true pair differs in about 6 of 64 bits, a chance one in about 32), so the
// scorer marks them first, eight signatures a vector instruction where the CPU has AVX-512's
// population count, then visits only the marked images.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace bovw::retrieval_detail {

// The functions that count the bits in which two signatures differ (__builtin_popcountll of their
// xor; pairs are the inner loop of scoring) are built twice and one is chosen when the library loads:
// with the POPCNT instruction (x86-64 CPUs since 2008-2011), and without it (libgcc's count), since the
// build assumes only the x86-64 baseline.
#if defined(__x86_64__)
#define BOVW_POPCNT_CLONES __attribute__((target_clones("popcnt", "default")))
#else
#define BOVW_POPCNT_CLONES
#endif

// Sets `marks` to n bits (64 a word, bit b of word b / 64 for signature b): whether some query
// signature differs from signatures[b] in at most `threshold` bits.
void markMatches(const std::uint64_t* query, std::size_t query_count, const std::uint64_t* signatures,
                 std::size_t n, int threshold, std::vector<std::uint64_t>& marks);
// The same without vector instructions (the reference of the tests; other CPUs).
void markMatchesScalar(const std::uint64_t* query, std::size_t query_count, const std::uint64_t* signatures,
                       std::size_t n, int threshold, std::vector<std::uint64_t>& marks);

// The first marked position at or after `from`, or n when there is none.
std::size_t nextMark(const std::vector<std::uint64_t>& marks, std::size_t from, std::size_t n);

}  // namespace bovw::retrieval_detail
