// The message fields that several kinds of rank message share (distributed/rank_message.hpp).
#include "distributed/rank_message.hpp"

#include "index/index_data.hpp"

namespace bovw::detail {

std::size_t readCount(ByteReader& in, std::size_t item_bytes, const char* what) {
  const std::uint64_t count = in.u64(what);
  if (count > in.remaining() / item_bytes)
    in.fail(std::string(what) + " is " + std::to_string(count) + ", more than the " +
            std::to_string(in.remaining()) + " bytes left can hold");
  return static_cast<std::size_t>(count);
}

void writeText(ByteWriter& out, const std::string& text) {
  out.u64(text.size());
  out.text(text);
}

std::string readText(ByteReader& in, const char* what) { return in.text(readCount(in, 1, what), what); }

void writeSparseHistogram(ByteWriter& out, HistogramRef histogram) {
  std::vector<std::uint32_t> words;
  std::vector<std::int32_t> counts;
  for (Eigen::Index w = 0; w < histogram.size(); ++w)
    if (histogram(w) != 0) {
      words.push_back(static_cast<std::uint32_t>(w));
      counts.push_back(histogram(w));
    }
  out.u64(static_cast<std::uint64_t>(histogram.size()));
  out.u64(words.size());
  out.array(words.data(), words.size());
  out.array(counts.data(), counts.size());
}

std::vector<std::int32_t> readSparseHistogram(ByteReader& in) {
  const std::uint64_t length = in.u64("the histogram's length");
  if (length > index_detail::kMaxWords)
    in.fail("a histogram of " + std::to_string(length) + " words, more than bovw's " +
            std::to_string(index_detail::kMaxWords));
  std::vector<std::uint32_t> words(readCount(in, sizeof(std::uint32_t) + sizeof(std::int32_t), "the word count"));
  std::vector<std::int32_t> counts(words.size());
  in.array(words.data(), words.size(), "the words");
  in.array(counts.data(), counts.size(), "the counts");
  std::vector<std::int32_t> histogram(static_cast<std::size_t>(length), 0);
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (words[i] >= length)
      in.fail("word " + std::to_string(words[i]) + " in a histogram of " + std::to_string(length) + " words");
    histogram[words[i]] = counts[i];
  }
  return histogram;
}

}  // namespace bovw::detail
