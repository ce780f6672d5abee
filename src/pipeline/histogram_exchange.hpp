// The per-image results of histogramImages (bovw/image_pipeline.hpp) moved between the ranks of a
// distributed job and put back in the job's image order. Each rank histograms its own part of the
// list (src/distributed/work_split.hpp); its results are sent as bytes (little-endian, histograms as their
// non-zero counts, keypoints and words exactly) and merged by the position of each image in the
// list, so that the merged results are those of one process over the whole list: the same rows,
// words and failures in the same order, whatever the number of ranks.
#pragma once

#include <bovw/communicator.hpp>
#include <bovw/image_pipeline.hpp>

#include <string>
#include <vector>

namespace bovw {

// Every field of `results` (names, histograms, descriptor counts, words with their keypoints and
// signatures when present, failures) as bytes.
Bytes encodeImageHistograms(const ImageHistograms& results);
// The inverse of encodeImageHistograms. Throws InvalidInput naming `source` (say "rank 2") for bytes
// that are not such an encoding.
ImageHistograms decodeImageHistograms(const Bytes& bytes, const std::string& source);

// Parts of one job's results (each in list order, the parts in any order, every image in at most
// one) merged in the order of `paths`: images and failures sorted by their path's position there.
// The parts must have all words or none. Throws InvalidInput for an image that `paths` lacks or
// that two parts hold.
ImageHistograms mergeImageHistograms(const std::vector<std::string>& paths, const std::vector<ImageHistograms>& parts);

// Every rank's `mine` merged on `root` (mergeImageHistograms over `paths`), a collective call; the
// other ranks get empty results.
ImageHistograms gatherImageHistograms(Communicator& ranks, const ImageHistograms& mine,
                                      const std::vector<std::string>& paths, int root = 0);

}  // namespace bovw
