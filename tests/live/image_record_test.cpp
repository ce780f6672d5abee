// The image records of a live database: random records (words up to K - 1, counts up to 2^31 - 1,
// with and without keypoints, empty) read back exactly; every truncation and every changed byte is
// refused naming the source; records whose words are out of order or range are refused.
#include "support/resealing.hpp"
#include "support/retrieval_test_support.hpp"

#include "live/image_record.hpp"

#include <bovw/error.hpp>

namespace bovw::test {
namespace {

using live_detail::ImageRecord;

ImageRecord randomRecord(std::mt19937_64& rng, int k, bool keypoints) {
  ImageRecord record;
  record.name = "images/" + std::to_string(rng() % 100000) + ".jpg";
  std::uniform_int_distribution<int> count(0, 40);
  std::uint32_t word = static_cast<std::uint32_t>(rng() % 3);
  for (int i = count(rng); i > 0 && word < static_cast<std::uint32_t>(k); --i) {
    const auto big = static_cast<std::int32_t>(rng() % 3 == 0 ? 0x7fffffff - rng() % 5 : 1 + rng() % 300);
    record.words.push_back({word, big});
    word += 1 + static_cast<std::uint32_t>(rng() % (rng() % 2 ? 3 : 200000));
  }
  if (keypoints) {
    record.keypoints.emplace();
    record.keypoints->width = 640;
    record.keypoints->height = 480;
    for (const auto& w : record.words)
      record.keypoints->keypoints.push_back({w.word, static_cast<std::uint16_t>(rng()), static_cast<std::uint16_t>(rng()), rng()});
  }
  return record;
}

void expectSame(const ImageRecord& a, const ImageRecord& b) {
  EXPECT_EQ(a.name, b.name);
  ASSERT_EQ(a.words.size(), b.words.size());
  for (std::size_t i = 0; i < a.words.size(); ++i) {
    EXPECT_EQ(a.words[i].word, b.words[i].word);
    EXPECT_EQ(a.words[i].count, b.words[i].count);
  }
  ASSERT_EQ(a.keypoints.has_value(), b.keypoints.has_value());
  if (!a.keypoints) return;
  EXPECT_EQ(a.keypoints->width, b.keypoints->width);
  ASSERT_EQ(a.keypoints->keypoints.size(), b.keypoints->keypoints.size());
  for (std::size_t i = 0; i < a.keypoints->keypoints.size(); ++i) {
    EXPECT_EQ(a.keypoints->keypoints[i].word, b.keypoints->keypoints[i].word);
    EXPECT_EQ(a.keypoints->keypoints[i].x, b.keypoints->keypoints[i].x);
    EXPECT_EQ(a.keypoints->keypoints[i].signature, b.keypoints->keypoints[i].signature);
  }
}

TEST(ImageRecord, ReadsBackWhatItWrote) {
  BOVW_SEEDED_RNG(rng);
  const int k = 1 << 24;
  for (int trial = 0; trial < 200; ++trial) {
    const ImageRecord record = randomRecord(rng, k, trial % 2 == 1);
    expectSame(live_detail::decodeRecord(live_detail::encodeRecord(record), k, "db (image 1)"), record);
  }
  const ImageRecord empty{"e.png", {}, std::nullopt};
  expectSame(live_detail::decodeRecord(live_detail::encodeRecord(empty), 1, "db"), empty);
}

// The fuzzing seeds were written by an encoder of its own (Python, from docs/FORMATS.md): they read
// as that description says, and encode back to the same bytes.
TEST(ImageRecord, ReadsRecordsWrittenFromTheFormatsDescription) {
  const std::string folder = std::string(BOVW_TEST_DATA) + "/../fuzz/corpus/image_record/";
  const std::vector<char> words = readBytes(folder + "words.record"), keypoints = readBytes(folder + "keypoints.record");
  const ImageRecord a = live_detail::decodeRecord(std::string_view(words.data(), words.size()), 70000, "words.record");
  EXPECT_EQ(a.name, "images/000123.jpg");
  const std::vector<std::pair<std::uint32_t, std::int32_t>> expected = {{0, 1}, {5, 3}, {130, 1}, {16500, 200}, {69999, 2}};
  ASSERT_EQ(a.words.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(a.words[i].word, expected[i].first);
    EXPECT_EQ(a.words[i].count, expected[i].second);
  }
  EXPECT_FALSE(a.keypoints);
  EXPECT_EQ(live_detail::encodeRecord(a), std::string(words.begin(), words.end()));
  const ImageRecord b = live_detail::decodeRecord(std::string_view(keypoints.data(), keypoints.size()), 10, "keypoints.record");
  ASSERT_TRUE(b.keypoints);
  EXPECT_EQ(b.keypoints->width, 640u);
  ASSERT_EQ(b.keypoints->keypoints.size(), 3u);
  EXPECT_EQ(b.keypoints->keypoints[0].signature, 0x0123456789abcdefull);
  EXPECT_EQ(b.keypoints->keypoints[2].x, 65535);
  EXPECT_EQ(live_detail::encodeRecord(b), std::string(keypoints.begin(), keypoints.end()));
  // A number written in a longer form than needed is refused: one encoding per record.
  std::string longer = live_detail::encodeRecord({"x", {{1, 1}}, std::nullopt});  // 01 'x' 01 01 00 ...
  longer[2] = static_cast<char>(0x81);  // the word count 1 as 81 00
  longer.insert(3, 1, '\0');
  longer = test::resealed(longer);  // the checksum's 8 bytes are the last; the inserted byte shifted them
  try {
    live_detail::decodeRecord(longer, 10, "db");
    ADD_FAILURE() << "a word count in a longer form was read";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("shortest form"), std::string::npos) << e.what();
  }
}

TEST(ImageRecord, RefusesEveryTruncationAndEveryChangedByte) {
  BOVW_SEEDED_RNG(rng);
  const int k = 5000;
  const std::string bytes = live_detail::encodeRecord(randomRecord(rng, k, true));
  for (std::size_t size = 0; size < bytes.size(); ++size)
    EXPECT_THROW(live_detail::decodeRecord(std::string_view(bytes.data(), size), k, "db (image 7)"), InvalidInput) << size;
  for (std::size_t at = 0; at < bytes.size(); ++at) {
    std::string changed = bytes;
    changed[at] = static_cast<char>(changed[at] ^ (1 + rng() % 255));
    try {
      live_detail::decodeRecord(changed, k, "db (image 7)");
      ADD_FAILURE() << "byte " << at << " changed, not noticed";
    } catch (const InvalidInput& e) {
      EXPECT_NE(std::string(e.what()).find("db (image 7)"), std::string::npos) << e.what();
    }
  }
}

TEST(ImageRecord, RefusesWordsOutOfOrderOrRange) {
  const int k = 100;
  for (const auto& words : std::vector<std::vector<index_detail::WordCount>>{{{5, 1}, {5, 2}}, {{100, 1}}, {{3, 1}, {99, 1}, {100, 1}}}) {
    const std::string bytes = live_detail::encodeRecord({"x.png", words, std::nullopt});
    EXPECT_THROW(live_detail::decodeRecord(bytes, k, "db"), InvalidInput);
  }
  EXPECT_NO_THROW(live_detail::decodeRecord(live_detail::encodeRecord({"x.png", {{0, 1}, {99, 7}}, std::nullopt}), k, "db"));
}

}  // namespace
}  // namespace bovw::test
