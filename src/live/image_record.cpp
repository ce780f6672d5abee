// Image records and the keys of a live database's tables.
#include "live/image_record.hpp"

#include "io/byte_reader.hpp"
#include "io/byte_writer.hpp"
#include "io/file_header.hpp"

#include <bovw/error.hpp>

#include <sstream>

namespace bovw::live_detail {

namespace {

constexpr std::uint32_t kNoKeypoints = 0xffffffffu;
constexpr const char* kFormatName = "live database image record";

}  // namespace

std::string encodeRecord(const ImageRecord& record) {
  std::ostringstream bytes;
  detail::ByteWriter out(bytes);
  out.u32(static_cast<std::uint32_t>(record.name.size()));
  out.text(record.name);
  out.u32(static_cast<std::uint32_t>(record.words.size()));
  for (const index_detail::WordCount& w : record.words) {
    out.u32(w.word);
    out.i32(w.count);
  }
  if (record.keypoints) retrieval_detail::KeypointStore::writeImage(out, *record.keypoints);
  else out.u32(kNoKeypoints);
  out.checksum();
  return bytes.str();
}

ImageRecord decodeRecord(std::string_view bytes, int words, const std::string& source) {
  detail::ByteReader in(bytes.data(), bytes.size(), source, kFormatName);
  detail::readTrailingChecksum(in);
  ImageRecord record;
  const std::uint32_t name_length = in.u32("the name's length");
  record.name = in.text(name_length, "the name");
  const std::uint32_t count = in.u32("the word count");
  if (count > in.remaining() / 8)
    in.fail(std::to_string(count) + " words declared, more than the " + std::to_string(in.remaining()) + " bytes left hold");
  record.words.resize(count);
  for (std::uint32_t i = 0; i < count; ++i) {
    index_detail::WordCount& w = record.words[i];
    w.word = in.u32("a word");
    w.count = in.i32("a word's count");
    if (w.word >= static_cast<std::uint32_t>(words) || w.count < 1 || (i > 0 && w.word <= record.words[i - 1].word))
      in.fail("word " + std::to_string(w.word) + " with count " + std::to_string(w.count) +
              " (words ascending below K = " + std::to_string(words) + ", counts >= 1)");
  }
  const std::uint32_t keypoints = in.u32("the keypoint count");
  if (keypoints != kNoKeypoints)
    record.keypoints = retrieval_detail::KeypointStore::readImage(in, keypoints, words, "'" + record.name + "'");
  if (in.remaining() != 0) in.fail(std::to_string(in.remaining()) + " unexpected bytes at its end");
  return record;
}

std::string idKey(std::uint32_t id) {
  std::string key(4, '\0');
  for (int i = 0; i < 4; ++i) key[i] = static_cast<char>((id >> (8 * (3 - i))) & 0xff);
  return key;
}

std::string generationKey(std::uint64_t generation) {
  std::string key(8, '\0');
  for (int i = 0; i < 8; ++i) key[i] = static_cast<char>((generation >> (8 * (7 - i))) & 0xff);
  return key;
}

std::uint64_t decodeKey(std::string_view key, const std::string& source) {
  if (key.size() != 4 && key.size() != 8)
    throw InvalidInput(source, "is damaged: a key of " + std::to_string(key.size()) + " bytes");
  std::uint64_t value = 0;
  for (char c : key) value = (value << 8) | static_cast<unsigned char>(c);
  return value;
}

}  // namespace bovw::live_detail
