// Image results as bytes (src/io's ByteWriter and ByteReader) and their merge in list order.
#include <bovw/histogram_exchange.hpp>

#include <bovw/error.hpp>

#include "io/byte_reader.hpp"
#include "io/byte_writer.hpp"

#include <algorithm>
#include <sstream>
#include <tuple>
#include <unordered_map>

namespace bovw {

namespace {

constexpr char kFormat[] = "image results";

void writeText(detail::ByteWriter& w, const std::string& text) {
  w.u64(text.size());
  w.text(text);
}

std::string readText(detail::ByteReader& r, const char* what) { return r.text(r.u64(what), what); }

template <typename T>
void writeArray(detail::ByteWriter& w, const std::vector<T>& values) {
  w.u64(values.size());
  w.array(values.data(), values.size());
}

template <typename T>
std::vector<T> readArray(detail::ByteReader& r, const char* what) {
  const std::uint64_t count = r.u64(what);
  if (count > r.remaining() / sizeof(T)) r.fail(std::string(what) + ": count beyond the data");
  std::vector<T> values(count);
  r.array(values.data(), values.size(), what);
  return values;
}

void writeWords(detail::ByteWriter& w, const ImageWords& words) {
  w.i32(words.image_size.width);
  w.i32(words.image_size.height);
  std::vector<float> coordinates;
  coordinates.reserve(2 * words.points.size());
  for (const cv::Point2f& p : words.points) coordinates.insert(coordinates.end(), {p.x, p.y});
  writeArray(w, coordinates);
  writeArray(w, words.words);
  writeArray(w, words.signatures);
}

ImageWords readWords(detail::ByteReader& r) {
  ImageWords words;
  words.image_size.width = r.i32("image width");
  words.image_size.height = r.i32("image height");
  const auto coordinates = readArray<float>(r, "keypoints");
  if (coordinates.size() % 2 != 0) r.fail("odd number of keypoint coordinates");
  for (std::size_t i = 0; i < coordinates.size(); i += 2) words.points.emplace_back(coordinates[i], coordinates[i + 1]);
  words.words = readArray<std::int32_t>(r, "words");
  words.signatures = readArray<std::uint64_t>(r, "signatures");
  return words;
}

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
  std::ostringstream out;
  detail::ByteWriter w(out);
  const bool with_words = !results.words.empty();
  w.u64(static_cast<std::uint64_t>(results.histograms.cols()));
  w.u64(results.names.size());
  w.number<std::uint8_t>(with_words ? 1 : 0);
  for (std::size_t i = 0; i < results.names.size(); ++i) {
    writeText(w, results.names[i]);
    w.number<std::int64_t>(results.descriptor_counts.at(i));
    // The histogram as (word, count) pairs of its non-zero counts: most of K words are 0 in an image.
    std::vector<std::int32_t> pairs;
    const auto row = results.histograms.row(static_cast<Eigen::Index>(i));
    for (Eigen::Index word = 0; word < row.size(); ++word)
      if (row[word] != 0) pairs.insert(pairs.end(), {static_cast<std::int32_t>(word), row[word]});
    writeArray(w, pairs);
    if (with_words) writeWords(w, results.words.at(i));
  }
  w.u64(results.failures.size());
  for (const ImageFailure& failure : results.failures) {
    writeText(w, failure.path);
    writeText(w, failure.message);
  }
  w.flush();
  const std::string text = out.str();
  return Bytes(text.begin(), text.end());
}

ImageHistograms decodeImageHistograms(const Bytes& bytes, const std::string& source) {
  detail::ByteReader r(reinterpret_cast<const char*>(bytes.data()), bytes.size(), source, kFormat);
  ImageHistograms results;
  const std::uint64_t words = r.u64("word count");
  const std::uint64_t images = r.u64("image count");
  const bool with_words = r.number<std::uint8_t>("words flag") != 0;
  if (words > (std::uint64_t{1} << 31) || images > r.remaining()) r.fail("counts beyond the data");
  results.histograms = Histograms::Zero(static_cast<Eigen::Index>(images), static_cast<Eigen::Index>(words));
  for (std::uint64_t i = 0; i < images; ++i) {
    results.names.push_back(readText(r, "image name"));
    results.descriptor_counts.push_back(r.number<std::int64_t>("descriptor count"));
    const auto pairs = readArray<std::int32_t>(r, "histogram");
    if (pairs.size() % 2 != 0) r.fail("odd histogram pair count");
    for (std::size_t p = 0; p < pairs.size(); p += 2) {
      if (pairs[p] < 0 || static_cast<std::uint64_t>(pairs[p]) >= words) r.fail("histogram word out of range");
      results.histograms(static_cast<Eigen::Index>(i), pairs[p]) = pairs[p + 1];
    }
    if (with_words) results.words.push_back(readWords(r));
  }
  const std::uint64_t failures = r.u64("failure count");
  for (std::uint64_t f = 0; f < failures; ++f) {
    ImageFailure failure;
    failure.path = readText(r, "failed image");
    failure.message = readText(r, "failure message");
    results.failures.push_back(std::move(failure));
  }
  if (r.remaining() != 0) r.fail("bytes after the failures");
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
