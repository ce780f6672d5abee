// The signature lists of a database (SignaturePostings) copied into a device's memory, so that a
// Hamming-embedding search scans them there: at 100,000 images a search reads about 62 MB of
// signatures and visits some 60,000 images' runs of features (docs/PERFORMANCE.md, "Serving"), which
// bounded a 16-core server at about 330 searches/s; a GPU reads them in tens of microseconds.
//
// The copy follows the lists: the one writer calls follow() after each change, and a word whose
// features were only appended to keeps the copied part, the rest appended on the device. A search
// checks, word by word, that the copy is of the list it took (SignaturePostings::WordFeatures::layout)
// and scores on the device the copied first features of each list; HammingScorer scores the rest on
// the host, so a search is right whatever the copy holds. What the device gives back for each image
// run is the same number as the host's pairSum, bit for bit (its double-precision arithmetic in the
// same order), and the host adds the runs into the images' sums in the same word order: rankings are
// those of the host's path exactly (tests/retrieval/resident_signatures_test.cpp).
#pragma once

#include "retrieval/signature_postings.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace bovw::retrieval_detail {

class ResidentSignatures {
 public:
  virtual ~ResidentSignatures() = default;
  virtual std::string deviceName() const = 0;

  // The one writer, under the store's one-writer lock, never beside another call of follow():
  // brings the copy of the lists of `words` (all of them where `words` is empty) up to date.
  virtual void follow(const SignaturePostings& postings, const std::vector<std::uint32_t>& words) = 0;

  // One query word's features and its list, for pairSums.
  struct Word {
    std::uint32_t word;                // in the vocabulary
    SignaturePostings::Snapshot list;  // as the search took it
    std::size_t query_begin, query_end;  // its features among the query's signatures
  };
  // An image's run of features in a list, scored: what HammingScorer::pairSum gives for the query's
  // features of the word against the run's features within the threshold of one of them.
  struct Run {
    std::uint32_t word;     // the index in the words given to pairSums
    ImageId id;
    std::uint32_t features;  // the run's length: the image's features of the word
    double pairs;
  };
  // Scores, on the device, the first covered[w] features of each word's list (set here: the part the
  // copy holds of the list the search took; 0 for a word it does not hold), appending to `runs` each
  // run of an image below `ids` with a feature within `threshold` of the word's query features, in
  // no order. `weights[h]`: the weight of a pair at distance h, for h <= threshold. Any number of
  // threads at once, and beside follow().
  virtual void pairSums(const std::vector<std::uint64_t>& query_signatures, const std::vector<Word>& words,
                        std::size_t ids, int threshold, const double* weights, std::vector<std::size_t>& covered,
                        std::vector<Run>& runs) = 0;
};

}  // namespace bovw::retrieval_detail
