// The fields of sharded search's rank messages: counts first, every count checked against the
// bytes left before anything is allocated for it.
#include "retrieval/shard_messages.hpp"

#include "index/index_data.hpp"

namespace bovw::retrieval_detail {

namespace {

// A count of items of at least `item_bytes` bytes each, refused if the message cannot hold them.
std::size_t readCount(detail::ByteReader& in, std::size_t item_bytes, const char* what) {
  const std::uint64_t count = in.u64(what);
  if (count > in.remaining() / item_bytes)
    in.fail(std::string(what) + " is " + std::to_string(count) + ", more than the " +
            std::to_string(in.remaining()) + " bytes left can hold");
  return static_cast<std::size_t>(count);
}

void writeText(detail::ByteWriter& out, const std::string& text) {
  out.u64(text.size());
  out.text(text);
}

std::string readText(detail::ByteReader& in, const char* what) { return in.text(readCount(in, 1, what), what); }

}  // namespace

void writeShards(detail::ByteWriter& out, const std::vector<ShardDescription>& shards) {
  out.u64(shards.size());
  for (const ShardDescription& s : shards) {
    out.u64(s.index);
    writeText(out, s.source);
    out.i32(s.identity.words);
    writeText(out, s.identity.descriptor_type);
    out.u64(s.identity.fingerprint);
    writeText(out, s.identity.features);
    out.number<std::uint8_t>(s.stores_keypoints ? 1 : 0);
  }
}

std::vector<ShardDescription> readShards(detail::ByteReader& in) {
  std::vector<ShardDescription> shards(readCount(in, 45, "the shard count"));  // 45: the fixed fields
  for (ShardDescription& s : shards) {
    s.index = in.u64("a shard's index");
    s.source = readText(in, "a shard's name");
    s.identity.words = in.i32("a shard's K");
    s.identity.descriptor_type = readText(in, "a shard's descriptor type");
    s.identity.fingerprint = in.u64("a shard's fingerprint");
    s.identity.features = readText(in, "a shard's features");
    s.stores_keypoints = in.number<std::uint8_t>("whether a shard stores keypoints") != 0;
  }
  return shards;
}

void writeHistogram(detail::ByteWriter& out, HistogramRef histogram) {
  // Sparse: a query image holds a few thousand words of a vocabulary of up to millions.
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

std::vector<std::int32_t> readHistogram(detail::ByteReader& in) {
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

void writeResults(detail::ByteWriter& out, const std::vector<ShardedResult>& results) {
  out.u64(results.size());
  for (const ShardedResult& r : results) {
    out.u64(r.shard);
    out.u32(r.id);
    writeText(out, r.name);
    out.f64(r.score);
  }
}

std::vector<ShardedResult> readResults(detail::ByteReader& in) {
  std::vector<ShardedResult> results(readCount(in, 28, "the result count"));  // 28: the fixed fields
  for (ShardedResult& r : results) {
    r.shard = in.u64("a result's shard");
    r.id = in.u32("a result's id");
    r.name = readText(in, "a result's name");
    r.score = in.f64("a result's score");
  }
  return results;
}

void writeImageWords(detail::ByteWriter& out, const ImageWords& words) {
  out.i32(words.image_size.width);
  out.i32(words.image_size.height);
  out.u64(words.points.size());
  for (const cv::Point2f& p : words.points) {
    out.number(p.x);
    out.number(p.y);
  }
  out.u64(words.words.size());
  out.array(words.words.data(), words.words.size());
  out.u64(words.signatures.size());
  out.array(words.signatures.data(), words.signatures.size());
}

ImageWords readImageWords(detail::ByteReader& in) {
  ImageWords words;
  words.image_size.width = in.i32("the image width");
  words.image_size.height = in.i32("the image height");
  words.points.resize(readCount(in, 2 * sizeof(float), "the keypoint count"));
  for (cv::Point2f& p : words.points) {
    p.x = in.number<float>("a keypoint");
    p.y = in.number<float>("a keypoint");
  }
  words.words.resize(readCount(in, sizeof(std::int32_t), "the word count"));
  in.array(words.words.data(), words.words.size(), "the words");
  words.signatures.resize(readCount(in, sizeof(std::uint64_t), "the signature count"));
  in.array(words.signatures.data(), words.signatures.size(), "the signatures");
  return words;
}

void writeShortlist(detail::ByteWriter& out, const std::vector<ShortlistEntry>& shortlist) {
  out.u64(shortlist.size());
  for (const ShortlistEntry& e : shortlist) {
    out.u64(e.shard);
    out.u32(e.id);
  }
}

std::vector<ShortlistEntry> readShortlist(detail::ByteReader& in) {
  std::vector<ShortlistEntry> shortlist(readCount(in, 12, "the shortlist's length"));
  for (ShortlistEntry& e : shortlist) {
    e.shard = in.u64("a shortlisted shard");
    e.id = in.u32("a shortlisted id");
  }
  return shortlist;
}

void writeInliers(detail::ByteWriter& out, const std::vector<CountedInliers>& counted) {
  out.u64(counted.size());
  for (const CountedInliers& c : counted) {
    out.u64(c.position);
    out.i32(c.inliers);
  }
}

std::vector<CountedInliers> readInliers(detail::ByteReader& in) {
  std::vector<CountedInliers> counted(readCount(in, 12, "the inlier count"));
  for (CountedInliers& c : counted) {
    c.position = in.u64("a shortlist position");
    c.inliers = in.i32("an inlier count");
  }
  return counted;
}

}  // namespace bovw::retrieval_detail
