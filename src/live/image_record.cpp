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

// LEB128: 7 bits a byte, low first. Words are stored as gaps from the previous word and counts less
// one, so that most take one byte: about 1,200 bytes for an image of 500 words instead of 4,000.
void writeVarint(detail::ByteWriter& out, std::uint32_t value) {
  while (value >= 0x80) {
    out.number(static_cast<std::uint8_t>(value | 0x80));
    value >>= 7;
  }
  out.number(static_cast<std::uint8_t>(value));
}

// Only the shortest form is read (no trailing zero groups), so that a record has one encoding.
std::uint32_t readVarint(detail::ByteReader& in, const char* what) {
  std::uint64_t value = 0;
  for (int shift = 0; shift < 35; shift += 7) {
    const auto byte = in.number<std::uint8_t>(what);
    value |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
    if (!(byte & 0x80)) {
      if (value > 0xffffffffull) break;
      if (shift > 0 && byte == 0) in.fail(std::string(what) + " is not in its shortest form");
      return static_cast<std::uint32_t>(value);
    }
  }
  in.fail(std::string(what) + " is not a 32-bit number");
}

}  // namespace

std::string encodeRecord(const ImageRecord& record) {
  std::ostringstream bytes;
  detail::ByteWriter out(bytes);
  writeVarint(out, static_cast<std::uint32_t>(record.name.size()));
  out.text(record.name);
  writeVarint(out, static_cast<std::uint32_t>(record.words.size()));
  std::uint32_t previous = 0;
  for (const index_detail::WordCount& w : record.words) {
    writeVarint(out, w.word - previous);
    writeVarint(out, static_cast<std::uint32_t>(w.count - 1));
    previous = w.word;
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
  const std::uint32_t name_length = readVarint(in, "the name's length");
  record.name = in.text(name_length, "the name");
  const std::uint32_t count = readVarint(in, "the word count");
  if (count > in.remaining() / 2)
    in.fail(std::to_string(count) + " words declared, more than the " + std::to_string(in.remaining()) + " bytes left hold");
  record.words.resize(count);
  std::uint64_t word = 0;
  for (std::uint32_t i = 0; i < count; ++i) {
    const std::uint32_t gap = readVarint(in, "a word");
    const std::uint32_t extra = readVarint(in, "a word's count");
    word += gap;
    if ((i > 0 && gap == 0) || word >= static_cast<std::uint64_t>(words) || extra >= 0x7fffffffu)
      in.fail("word " + std::to_string(word) + " with count " + std::to_string(extra + 1ull) +
              " (words ascending below K = " + std::to_string(words) + ", counts below 2^31)");
    record.words[i] = {static_cast<std::uint32_t>(word), static_cast<std::int32_t>(extra + 1)};
  }
  // Bit 31 of the count marks keypoints with scale and angle (KeypointStore::kWithScaleAngle); records
  // written before them lack it and read as keypoints without.
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
