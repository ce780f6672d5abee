// The messages of sharded search over ranks (src/retrieval/shard_messages.hpp) read back exactly
// what was written (scores to the bit, names of any bytes, sparse histograms with negative
// counts), and every truncation or forged count of a message is refused as InvalidInput naming it.
#include "retrieval/image_words_message.hpp"
#include "retrieval/shard_messages.hpp"

#include <gtest/gtest.h>

#include <bovw/error.hpp>
#include <cmath>
#include <cstring>
#include <limits>

#include "distributed/rank_message.hpp"

namespace bovw::retrieval_detail {
namespace {

std::uint64_t bitsOf(double value) {
  std::uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

// A message holding one of each field list.
struct Sample {
  std::vector<ShardDescription> shards{{3, "dir/s-3.bovwdb", {1000, "surf64", 0x0123456789abcdefull, "surf x=1"}, true},
                                       {0, std::string("a\0b,\"\xc3\xbc", 7), {1, "", 0, ""}, false}};
  Eigen::Matrix<std::int32_t, 1, Eigen::Dynamic> histogram =
      (Eigen::Matrix<std::int32_t, 1, 6>() << 0, 4, 0, -2, 0, 7).finished();
  std::vector<ShardedResult> results{{2, 7, "x, y", 0.1 + 0.2},
                                     {0, 0, "", -0.0},
                                     {1u << 20, 0xffffffffu, "z", std::numeric_limits<double>::denorm_min()}};
  ImageWords words{{640, 480}, {{1.5f, 2.25f}, {639.9f, 0.0f}}, {5, -1}, {~0ull, 1}, {2.5f, 1e6f}, {-1.0f, 359.5f}};
  std::vector<ShortlistEntry> shortlist{{4, 9}, {0, 0}};
  // A match with a homography (elements with every bit significant) and one without.
  std::vector<ShortlistMatch> matches{
      {1, {40, 17, cv::Matx33d(1.0 / 3, -2.5e-7, 640.125, 0.1 + 0.2, 1e300, -0.0, 1e-300, 3.0, 1.0), -7.25, ""}},
      {0, {3, 0, std::nullopt, std::numeric_limits<double>::infinity(), "it mirrors the image"}}};
};

Bytes write(const Sample& s) {
  return detail::writeMessage([&](detail::ByteWriter& out) {
    writeShards(out, s.shards);
    detail::writeSparseHistogram(out, s.histogram);
    writeResults(out, s.results);
    detail::writeImageWords(out, s.words);
    writeShortlist(out, s.shortlist);
    writeMatches(out, s.matches);
  });
}

void readAll(const Bytes& bytes, Sample& got) {
  detail::ByteReader in = detail::messageReader(bytes, "rank 1's test message");
  got.shards = readShards(in);
  const std::vector<std::int32_t> histogram = detail::readSparseHistogram(in);
  got.histogram = Eigen::Map<const Eigen::Matrix<std::int32_t, 1, Eigen::Dynamic>>(
      histogram.data(), static_cast<Eigen::Index>(histogram.size()));
  got.results = readResults(in);
  got.words = detail::readImageWords(in);
  got.shortlist = readShortlist(in);
  got.matches = readMatches(in);
  detail::expectMessageEnd(in);
}

TEST(ShardMessages, ReadBackExactlyWhatWasWritten) {
  const Sample sent;
  Sample got;
  got.shards.clear();
  got.results.clear();
  readAll(write(sent), got);
  ASSERT_EQ(got.shards.size(), sent.shards.size());
  for (std::size_t i = 0; i < sent.shards.size(); ++i) {
    EXPECT_EQ(got.shards[i].index, sent.shards[i].index);
    EXPECT_EQ(got.shards[i].source, sent.shards[i].source);
    EXPECT_EQ(got.shards[i].identity.words, sent.shards[i].identity.words);
    EXPECT_EQ(got.shards[i].identity.descriptor_type, sent.shards[i].identity.descriptor_type);
    EXPECT_EQ(got.shards[i].identity.fingerprint, sent.shards[i].identity.fingerprint);
    EXPECT_EQ(got.shards[i].identity.features, sent.shards[i].identity.features);
    EXPECT_EQ(got.shards[i].stores_keypoints, sent.shards[i].stores_keypoints);
  }
  EXPECT_EQ(got.histogram, sent.histogram);
  ASSERT_EQ(got.results.size(), sent.results.size());
  for (std::size_t i = 0; i < sent.results.size(); ++i) {
    EXPECT_EQ(got.results[i].shard, sent.results[i].shard);
    EXPECT_EQ(got.results[i].id, sent.results[i].id);
    EXPECT_EQ(got.results[i].name, sent.results[i].name);
    EXPECT_EQ(bitsOf(got.results[i].score), bitsOf(sent.results[i].score));
  }
  EXPECT_EQ(got.words.image_size, sent.words.image_size);
  EXPECT_EQ(got.words.points, sent.words.points);
  EXPECT_EQ(got.words.words, sent.words.words);
  EXPECT_EQ(got.words.signatures, sent.words.signatures);
  EXPECT_EQ(got.words.sizes, sent.words.sizes);
  EXPECT_EQ(got.words.angles, sent.words.angles);
  ASSERT_EQ(got.shortlist.size(), 2u);
  EXPECT_EQ(got.shortlist[0].shard, 4u);
  EXPECT_EQ(got.shortlist[0].id, 9u);
  ASSERT_EQ(got.matches.size(), sent.matches.size());
  for (std::size_t i = 0; i < sent.matches.size(); ++i) {
    const GeometricMatch &a = got.matches[i].match, &b = sent.matches[i].match;
    EXPECT_EQ(got.matches[i].position, sent.matches[i].position);
    EXPECT_EQ(a.correspondences, b.correspondences);
    EXPECT_EQ(a.inliers, b.inliers);
    EXPECT_EQ(bitsOf(a.log10_false_alarms), bitsOf(b.log10_false_alarms));
    EXPECT_EQ(a.implausible, b.implausible);
    ASSERT_EQ(a.homography.has_value(), b.homography.has_value());
    if (b.homography) {
      for (int e = 0; e < 9; ++e) EXPECT_EQ(bitsOf(a.homography->val[e]), bitsOf(b.homography->val[e])) << e;
    }
  }
}

TEST(ShardMessages, EveryTruncationAndExtraByteIsRefusedNamingTheMessage) {
  const Bytes whole = write(Sample());
  for (std::size_t size = 0; size <= whole.size() + 1; ++size) {
    if (size == whole.size()) continue;
    Bytes cut(whole.begin(), whole.begin() + static_cast<std::ptrdiff_t>(std::min(size, whole.size())));
    if (size > whole.size()) cut.push_back(0);
    Sample got;
    try {
      readAll(cut, got);
      ADD_FAILURE() << size << " of " << whole.size() << " bytes were read as a message";
    } catch (const InvalidInput& e) {
      EXPECT_NE(std::string(e.what()).find("rank 1's test message"), std::string::npos) << e.what();
    }
  }
}

TEST(ShardMessages, ForgedCountsAndWordsAreRefusedBeforeAllocating) {
  auto refused = [](const Bytes& bytes, const std::string& problem) {
    try {
      detail::ByteReader in = detail::messageReader(bytes, "forged");
      detail::readSparseHistogram(in);
      ADD_FAILURE() << "accepted; expected: " << problem;
    } catch (const InvalidInput& e) {
      EXPECT_NE(std::string(e.what()).find(problem), std::string::npos) << e.what();
    }
  };
  refused(detail::writeMessage([](detail::ByteWriter& out) { out.u64(std::uint64_t{1} << 40); }), "more than bovw's");
  refused(detail::writeMessage([](detail::ByteWriter& out) {
            out.u64(10);
            out.u64(std::uint64_t{1} << 60);
          }),
          "the word count is");
  refused(detail::writeMessage([](detail::ByteWriter& out) {
            out.u64(10);
            out.u64(1);
            out.u32(10);
            out.i32(3);
          }),
          "word 10 in a histogram of 10 words");
}

}  // namespace
}  // namespace bovw::retrieval_detail
