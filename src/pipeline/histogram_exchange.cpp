// Image results as bytes (src/io's ByteWriter and ByteReader) and their merge in list order.
#include "pipeline/histogram_exchange.hpp"

#include <bovw/error.hpp>

#include "distributed/rank_message.hpp"
#include "retrieval/image_words_message.hpp"

#include <algorithm>
#include <tuple>
#include <unordered_map>

namespace bovw {

namespace {

using detail::readText;
using detail::writeText;

// Where each result goes in the merged list: its path's position, then which part and row it is.
struct Placement {
  std::size_t position;
  std::size_t part;
  std::size_t item;
  bool operator<(const Placement& other) const {
    return std::tie(position, part, item) < std::tie(other.position, other.part, other.item);
  }
};

}  // namespace

Bytes encodeImageHistograms(const ImageHistograms& results) {
  return detail::writeMessage([&](detail::ByteWriter& w) {
    const bool with_words = !results.words.empty();
    w.u64(static_cast<std::uint64_t>(results.histograms.cols()));
    w.u64(results.names.size());
    w.number<std::uint8_t>(with_words ? 1 : 0);
    for (std::size_t i = 0; i < results.names.size(); ++i) {
      writeText(w, results.names[i]);
      w.number<std::int64_t>(results.descriptor_counts.at(i));
      detail::writeSparseHistogram(w, results.histograms.row(static_cast<Eigen::Index>(i)));
      if (with_words) detail::writeImageWords(w, results.words.at(i));
    }
    w.u64(results.failures.size());
    for (const ImageFailure& failure : results.failures) {
      writeText(w, failure.path);
      writeText(w, failure.message);
    }
  });
}

ImageHistograms decodeImageHistograms(const Bytes& bytes, const std::string& source) {
  detail::ByteReader r = detail::messageReader(bytes, source);
  ImageHistograms results;
  const std::uint64_t words = r.u64("word count");
  const std::uint64_t images = r.u64("image count");
  const bool with_words = r.number<std::uint8_t>("words flag") != 0;
  if (words > (std::uint64_t{1} << 31) || images > r.remaining()) r.fail("counts beyond the data");
  results.histograms = Histograms::Zero(static_cast<Eigen::Index>(images), static_cast<Eigen::Index>(words));
  for (std::uint64_t i = 0; i < images; ++i) {
    results.names.push_back(readText(r, "image name"));
    results.descriptor_counts.push_back(r.number<std::int64_t>("descriptor count"));
    const std::vector<std::int32_t> histogram = detail::readSparseHistogram(r);
    if (histogram.size() != words) r.fail("a histogram of " + std::to_string(histogram.size()) + " words, not " +
                                          std::to_string(words));
    for (std::size_t w = 0; w < histogram.size(); ++w)
      results.histograms(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(w)) = histogram[w];
    if (with_words) results.words.push_back(detail::readImageWords(r));
  }
  const std::uint64_t failures = r.u64("failure count");
  for (std::uint64_t f = 0; f < failures; ++f) {
    ImageFailure failure;
    failure.path = readText(r, "failed image");
    failure.message = readText(r, "failure message");
    results.failures.push_back(std::move(failure));
  }
  detail::expectMessageEnd(r);
  return results;
}

ImageHistograms mergeImageHistograms(const std::vector<std::string>& paths,
                                     const std::vector<ImageHistograms>& parts) {
  std::unordered_map<std::string, std::size_t> position;
  for (std::size_t i = 0; i < paths.size(); ++i) position.emplace(paths[i], i);
  auto positionOf = [&](const std::string& path) {
    const auto found = position.find(path);
    if (found == position.end()) throw InvalidInput("'" + path + "': an image result for a file not in the job's list");
    return found->second;
  };
  std::vector<Placement> images, failures;
  Eigen::Index words = 0;
  bool with_words = false;
  for (std::size_t p = 0; p < parts.size(); ++p) {
    const ImageHistograms& part = parts[p];
    if (!part.names.empty()) {
      if (words != 0 && part.histograms.cols() != words)
        throw InvalidInput("image results of different vocabulary sizes cannot be merged");
      words = part.histograms.cols();
      with_words = with_words || !part.words.empty();
    }
    for (std::size_t i = 0; i < part.names.size(); ++i) images.push_back({positionOf(part.names[i]), p, i});
    for (std::size_t f = 0; f < part.failures.size(); ++f) failures.push_back({positionOf(part.failures[f].path), p, f});
  }
  std::sort(images.begin(), images.end());
  std::sort(failures.begin(), failures.end());
  ImageHistograms merged;
  merged.histograms.resize(static_cast<Eigen::Index>(images.size()), words);
  for (std::size_t i = 0; i < images.size(); ++i) {
    if (i > 0 && images[i].position == images[i - 1].position)
      throw InvalidInput("'" + paths[images[i].position] + "': two image results for one file");
    const ImageHistograms& part = parts[images[i].part];
    if (with_words && part.words.size() != part.names.size())
      throw InvalidInput("image results with and without words cannot be merged");
    merged.names.push_back(part.names[images[i].item]);
    merged.descriptor_counts.push_back(part.descriptor_counts.at(images[i].item));
    merged.histograms.row(static_cast<Eigen::Index>(i)) = part.histograms.row(static_cast<Eigen::Index>(images[i].item));
    if (with_words) merged.words.push_back(part.words[images[i].item]);
  }
  for (const Placement& f : failures) merged.failures.push_back(parts[f.part].failures[f.item]);
  return merged;
}

ImageHistograms gatherImageHistograms(Communicator& ranks, const ImageHistograms& mine,
                                      const std::vector<std::string>& paths, int root) {
  if (ranks.size() == 1) return mine;  // already in list order: the merge of one part
  const std::vector<Bytes> received = ranks.gather(encodeImageHistograms(mine), root);
  if (ranks.rank() != root) return {};
  std::vector<ImageHistograms> parts;
  for (std::size_t r = 0; r < received.size(); ++r)
    parts.push_back(decodeImageHistograms(received[r], "rank " + std::to_string(r)));
  return mergeImageHistograms(paths, parts);
}

}  // namespace bovw
