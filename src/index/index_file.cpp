// Writing and reading the inverted index's file (format in index_file.hpp). The reader trusts
// nothing: every count is checked against the bytes left before anything is allocated for it.
#include "index/index_file.hpp"

#include "io/file_bytes.hpp"
#include "io/file_header.hpp"

#include <bovw/error.hpp>

#include <algorithm>
#include <climits>

namespace bovw::index_detail {

namespace {

constexpr detail::BinaryFormat kFormat{"bovw index", {'B', 'O', 'V', 'W', 'I', 'N', 'D', 'X'}, 1, 1, 1};

}  // namespace

namespace {

// The file's bytes, checksum included, into `e`.
void writeIndexTo(detail::ByteWriter& e, const IndexData& data) {
  const VocabularySignature& v = data.vocabulary;
  std::uint64_t total = 0;
  std::uint32_t lists = 0;
  for (std::size_t w = 0; w < data.words(); ++w) {
    const std::uint64_t n = data.frequency(w);
    total += n;
    lists += n == 0 ? 0 : 1;
  }
  detail::writeFileHeader(e, kFormat);
  e.u32(static_cast<std::uint32_t>(v.words));
  e.u32(static_cast<std::uint32_t>(v.dimension));
  e.u64(v.fingerprint);
  e.u32(static_cast<std::uint32_t>(data.names.size()));
  e.u32(static_cast<std::uint32_t>(data.live()));
  e.u64(total);
  e.u32(lists);
  const std::string type = v.descriptor_type.toString();
  e.u32(static_cast<std::uint32_t>(type.size()));
  e.text(type);
  for (const auto& name : data.names) {
    e.u32(static_cast<std::uint32_t>(name.size()));
    e.text(name);
  }
  for (std::size_t w = 0; w < data.words(); ++w) {
    const std::uint64_t n = data.frequency(w);
    if (n == 0) continue;
    e.u32(static_cast<std::uint32_t>(w));
    e.u32(static_cast<std::uint32_t>(n));
    for (const Segment& segment : data.segments)  // one list: the segments' ids ascend
      segment.lists[w].forEach([&](ImageId image, std::int32_t count) {
        e.u32(image);
        e.u32(static_cast<std::uint32_t>(count));
      });
  }
  e.checksum();
}

// What writeIndexTo writes, in bytes.
std::uint64_t indexBytes(const IndexData& data) {
  std::uint64_t bytes = kHeaderSize + data.vocabulary.descriptor_type.toString().size() + 8;  // + the checksum
  for (const auto& name : data.names) bytes += 4 + name.size();
  for (std::size_t w = 0; w < data.words(); ++w)
    if (const std::uint64_t n = data.frequency(w); n > 0) bytes += 8 + 8 * n;
  return bytes;
}

}  // namespace

void writeIndex(std::ostream& out, const IndexData& data) {
  detail::ByteWriter e(out);
  writeIndexTo(e, data);
}

void writeIndexBlock(detail::ByteWriter& out, const IndexData& data) {
  out.block(indexBytes(data), "index", [&](detail::ByteWriter& enclosing) {
    detail::ByteWriter index(enclosing);  // its own checksum, as in an index file
    writeIndexTo(index, data);
  });
}

namespace {

// The fixed fields (offsets 16 .. 56), checked against each other and against the `size` of the
// whole file: enough to refuse a file from its first 56 bytes, before the rest is read.
struct Header {
  std::uint32_t words, dimension;
  std::uint64_t fingerprint;
  std::uint32_t slots, live;
  std::uint64_t total;
  std::uint32_t lists, type_length;
};

Header readHeader(detail::ByteReader& d, std::uint64_t size) {
  detail::readFileHeader(d, kFormat);
  if (size < kHeaderSize + detail::kChecksumSize)
    d.fail("the file has " + std::to_string(size) + " bytes, fewer than the " +
           std::to_string(kHeaderSize + detail::kChecksumSize) + " of an empty index (truncated?)");

  Header h{};
  h.words = d.u32("K");
  h.dimension = d.u32("D");
  h.fingerprint = d.u64("the fingerprint");
  h.slots = d.u32("the id count");
  h.live = d.u32("the image count");
  h.total = d.u64("the posting count");
  h.lists = d.u32("the list count");
  h.type_length = d.u32("the descriptor type's length");

  if (h.words == 0 || h.words > kMaxWords)
    d.fail("K = " + std::to_string(h.words) + " words is outside 1 .. " + std::to_string(kMaxWords));
  if (h.dimension == 0 || h.dimension > static_cast<std::uint32_t>(INT_MAX))
    d.fail("descriptor width D = " + std::to_string(h.dimension) + " is out of range");
  if (h.slots == kMaxIds) d.fail("id count " + std::to_string(h.slots) + " is out of range");
  if (h.live > h.slots)
    d.fail(std::to_string(h.live) + " live images but only " + std::to_string(h.slots) + " ids");
  if (h.type_length > kMaxDescriptorTypeLength)
    d.fail("descriptor type of " + std::to_string(h.type_length) + " bytes (at most " +
           std::to_string(kMaxDescriptorTypeLength) + ")");
  if (h.lists > h.words)
    d.fail(std::to_string(h.lists) + " posting lists for " + std::to_string(h.words) + " words");
  if (h.lists > h.total)
    d.fail(std::to_string(h.lists) + " non-empty posting lists but " + std::to_string(h.total) + " postings");
  // The least the counts need: 4 bytes per id plus 1 per live name, 8 per list and per posting.
  // `total` is checked against the size first so that 8 * total cannot overflow.
  const std::uint64_t least =
      kHeaderSize + h.type_length + 4ull * h.slots + h.live + 8ull * h.lists + detail::kChecksumSize;
  if (h.total > size / 8 || least + 8 * h.total > size)
    d.fail("the header declares " + std::to_string(h.slots) + " ids, " + std::to_string(h.live) + " images and " +
           std::to_string(h.total) + " postings in " + std::to_string(h.lists) + " lists, more than its " +
           std::to_string(size) + " bytes can hold (truncated or corrupt)");
  return h;
}

}  // namespace

IndexData readIndex(const std::string& path) {
  detail::InputFile file(path);
  // The header first: a file that is not an index, or whose counts its size cannot hold, is
  // refused after 56 bytes (not after reading, say, a 2 GB file whole).
  char head[kHeaderSize];
  const auto head_size = static_cast<std::size_t>(std::min<std::uint64_t>(file.size(), kHeaderSize));
  file.read(head, head_size);
  detail::ByteReader d(head, head_size, path, kFormat.name);
  readHeader(d, file.size());
  file.seek(0);
  const std::vector<char> bytes = file.readRest();
  return decodeIndex(bytes.data(), bytes.size(), path);
}

IndexData decodeIndex(const char* file, std::size_t size, const std::string& path,
                      const VocabularySignature* expected) {
  detail::ByteReader d(file, size, path, kFormat.name);
  const Header h = readHeader(d, size);
  const std::uint32_t words = h.words, slots = h.slots, live = h.live, lists = h.lists;
  const std::uint64_t total = h.total;

  // All counts are plausible; now the whole content must match its checksum before it is parsed.
  detail::readTrailingChecksum(d);

  IndexData data;
  data.vocabulary.words = static_cast<int>(words);
  data.vocabulary.dimension = static_cast<int>(h.dimension);
  data.vocabulary.fingerprint = h.fingerprint;
  const std::string type = d.text(h.type_length, "the descriptor type");
  try {
    data.vocabulary.descriptor_type = DescriptorType::parse(type);
  } catch (const InvalidInput& e) {
    d.fail(e.problem());
  }
  // Before a list is allocated per word: 2^24 of them cost 0.8 GB, which an index embedded beside
  // a vocabulary of another K must not cost before it is refused.
  if (expected) checkSameVocabulary(data.vocabulary, *expected);

  data.names.reserve(slots);  // bounded by the size check above: 4 bytes per id
  data.ids.reserve(live);
  for (std::uint32_t id = 0; id < slots; ++id) {
    const std::uint32_t length = d.u32("a name's length");
    std::string name = d.text(length, "a name");
    if (!name.empty() && !data.ids.emplace(name, id).second)
      d.fail("the name '" + name + "' appears twice (ids " + std::to_string(data.ids[name]) + " and " +
             std::to_string(id) + ")");
    data.names.push_back(std::move(name));
  }
  if (data.live() != live)
    d.fail("the header declares " + std::to_string(live) + " images but " + std::to_string(data.live()) +
           " names are present");

  // The lists the file holds, by word, checked whole before a list is made for each of the K words
  // (48 bytes each, 0.8 GB at 2^24): a file refused for its lists costs what it holds, not K.
  std::vector<std::pair<std::uint32_t, PostingList>> held;
  held.reserve(lists);  // bounded by the size check above: 8 bytes per list at least
  std::uint64_t seen = 0;
  std::int64_t previous_word = -1;
  for (std::uint32_t l = 0; l < lists; ++l) {
    const std::uint32_t word = d.u32("a word id");
    if (word >= words) d.fail("word id " + std::to_string(word) + " >= K = " + std::to_string(words));
    if (static_cast<std::int64_t>(word) <= previous_word)
      d.fail("word " + std::to_string(word) + " after word " + std::to_string(previous_word) +
             " (lists must be in increasing word order)");
    previous_word = word;
    const std::uint32_t n = d.u32("a posting list's length");
    if (n == 0) d.fail("word " + std::to_string(word) + " has an empty posting list");
    if (n > total - seen || n > d.remaining() / 8)
      d.fail("word " + std::to_string(word) + " declares " + std::to_string(n) +
             " postings, more than the header's total or the file's size allow");
    seen += n;
    PostingList& list = held.emplace_back(word, PostingList()).second;
    list.reserve(n);
    std::int64_t previous_image = -1;
    for (std::uint32_t i = 0; i < n; ++i) {
      const std::uint32_t image = d.u32("an image id");
      const std::uint32_t count = d.u32("a count");
      if (image >= slots || data.names[image].empty())
        d.fail("word " + std::to_string(word) + " lists image id " + std::to_string(image) +
               ", which is not a live image");
      if (static_cast<std::int64_t>(image) <= previous_image)
        d.fail("word " + std::to_string(word) + "'s image ids are not strictly increasing");
      if (count == 0 || count > static_cast<std::uint32_t>(INT32_MAX))
        d.fail("word " + std::to_string(word) + " has count " + std::to_string(count) + " for image " +
               std::to_string(image) + " (must be 1 .. 2^31-1)");
      previous_image = image;
      list.push_back(image, static_cast<std::int32_t>(count));
    }
    list.adapt(slots);
  }
  if (seen != total)
    d.fail("the header declares " + std::to_string(total) + " postings but the lists hold " + std::to_string(seen));
  if (d.remaining() != 0)
    d.fail(std::to_string(d.remaining()) + " unexpected bytes after the posting lists");
  data.segments.front().lists.resize(words);
  for (auto& [word, list] : held) data.segments.front().lists[word] = std::move(list);
  return data;
}

}  // namespace bovw::index_detail
