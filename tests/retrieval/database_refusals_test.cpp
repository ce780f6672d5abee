// What a database reader refuses before it costs anything (issue 19): a FIFO or a device given as
// a database, as a shard of a manifest or as an image (refused named, without waiting or reading);
// a sparse 2 GB file (refused after its first bytes); a small .bovwdb whose index declares 2^24
// words beside a vocabulary of 4 (refused for the mismatch before 2^24 lists are made); and a
// keypoint block that does not fit its index (one slot per id ever assigned, keypoints exactly for
// the live images), which would otherwise make verification skip images silently.
#include "support/refusal_checks.hpp"
#include "support/resealing.hpp"
#include "support/retrieval_test_support.hpp"

#include <bovw/error.hpp>
#include <bovw/image_database.hpp>
#include <bovw/image_pipeline.hpp>
#include <bovw/shard_manifest.hpp>
#include <bovw/sharded_database.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <optional>

namespace bovw::test {
namespace {

template <typename T>
T valueAt(const std::vector<char>& bytes, std::size_t at) {
  return detail::decodeLittleEndian<T>(reinterpret_cast<const unsigned char*>(bytes.data()) + at);
}

template <typename T>
void poke(std::vector<char>& bytes, std::size_t at, T value) {
  detail::encodeLittleEndian(value, reinterpret_cast<unsigned char*>(bytes.data()) + at);
}

template <typename T>
void append(std::vector<char>& bytes, T value) {
  bytes.resize(bytes.size() + sizeof(T));
  poke(bytes, bytes.size() - sizeof(T), value);
}

// Where a version-4 or -5 file's blocks lie (docs/FORMATS.md): each a u64 length, then its bytes.
struct Block {
  std::size_t length_at, begin, end;
};
std::vector<Block> blocksOf(const std::vector<char>& bytes) {
  std::vector<Block> blocks;
  std::size_t at = 20 + valueAt<std::uint32_t>(bytes, 16);  // after the feature spec
  for (int b = 0; b < 3; ++b) {
    const auto length = static_cast<std::size_t>(valueAt<std::uint64_t>(bytes, at));
    blocks.push_back({at, at + 8, at + 8 + length});
    at += 8 + length;
  }
  return blocks;
}

// The 4-word, 64-D database of three images (no keypoints, or keypoints of none per image), the
// second removed.
ImageDatabase smallDatabase(bool keypoints) {
  std::mt19937_64 rng(19);
  ImageDatabase database(Vocabulary(randomMatrix(rng, 4, 64), DescriptorType::parse("surf64")), FeatureSpec(),
                         DatabaseOptions{keypoints});
  for (int i = 0; i < 3; ++i) {
    ImageWords image;
    image.image_size = {100, 80};
    image.points = {{10.0f + i, 20.0f}};
    image.words = {i};
    image.signatures = {0x1234u + static_cast<std::uint64_t>(i)};
    database.add("img" + std::to_string(i), image);
  }
  database.remove("img1");
  return database;
}

std::vector<char> savedBytes(const ImageDatabase& database, const std::string& path) {
  database.save(path);
  return readBytes(path);
}

class DatabaseRefusals : public testing::Test {
 protected:
  void SetUp() override {
    fifo_ = dir_.file("pipe.bovwdb");
    ASSERT_EQ(::mkfifo(fifo_.c_str(), 0600), 0);
  }

  static void expectNamed(const Thrown& thrown, const std::string& kind, const std::string& file,
                          const std::string& what) {
    EXPECT_EQ(thrown.kind, kind) << thrown.message;
    EXPECT_TRUE(contains(thrown.message, "'" + file)) << thrown.message;
    EXPECT_TRUE(contains(thrown.message, what)) << thrown.message;
  }

  TempDir dir_;
  std::string fifo_;
};

TEST_F(DatabaseRefusals, AFifoAsDatabaseOrAsAShardIsRefusedWithoutWaiting) {
  expectNamed(withoutBlockingOn(fifo_, [&] { ImageDatabase::load(fifo_); }), "IoError", fifo_, "is a FIFO");
  expectNamed(withoutBlockingOn(fifo_, [&] { ShardedDatabase::load(fifo_); }), "IoError", fifo_, "is a FIFO");
  EXPECT_FALSE(looksLikeShardManifest(fifo_));

  // A manifest whose second shard is the FIFO: that shard is named.
  const ImageDatabase database = smallDatabase(false);
  database.save(dir_.file("s0.bovwdb"));
  const std::string manifest = dir_.file("db.bovwshards");
  {
    std::ofstream out(manifest);
    ShardedDatabase::manifestFor(database, {"s0.bovwdb", "pipe.bovwdb"}).write(out);
  }
  const std::string shard = (std::filesystem::path(manifest).parent_path() / "pipe.bovwdb").string();
  expectNamed(withoutBlockingOn(fifo_, [&] { ShardedDatabase::load(manifest); }), "IoError", shard, "is a FIFO");

  // A directory and a device, the same way.
  expectNamed(thrownBy([&] { ImageDatabase::load(dir_.path()); }), "IoError", dir_.path(), "is a directory");
  expectNamed(thrownBy([] { ShardedDatabase::load("/dev/zero"); }), "IoError", "/dev/zero", "a character device");
}

TEST_F(DatabaseRefusals, AFifoADeviceOrADirectoryAsAnImageIsRefusedNamed) {
  const std::string folder = dir_.file("x.jpg");
  ASSERT_TRUE(std::filesystem::create_directory(folder));
  expectNamed(thrownBy([&] { loadImage(folder); }), "IoError", folder, "is a directory, not an image file");
  const std::string pipe = dir_.file("y.png");
  ASSERT_EQ(::mkfifo(pipe.c_str(), 0600), 0);
  expectNamed(withoutBlockingOn(pipe, [&] { loadImage(pipe); }), "IoError", pipe,
              "is a FIFO (named pipe), not an image file");
  const ResourceUse use = measureResources([] {
    expectNamed(thrownBy([] { loadImage("/dev/zero"); }), "IoError", "/dev/zero",
                "is a character device, not an image file");
  });
  EXPECT_LT(use.seconds, 2.0);
  EXPECT_LT(use.peak_growth_mb, 64.0);

  // A folder lists neither as an image, only the image beside them.
  std::filesystem::copy_file(dataFile("box.png"), dir_.file("box.png"));
  EXPECT_EQ(listImages(dir_.path()), std::vector<std::string>{dir_.file("box.png")});
}

TEST_F(DatabaseRefusals, ASparse2GBFileIsRefusedFromItsFirstBytes) {
  const std::string big = dir_.file("big.bovwdb");
  const int fd = ::open(big.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::ftruncate(fd, (off_t{1} << 31) + 12345), 0);
  ::close(fd);
  auto refusedQuickly = [&](const std::string& what) {
    SCOPED_TRACE(what);
    Thrown thrown;
    const ResourceUse use = measureResources([&] { thrown = thrownBy([&] { ShardedDatabase::load(big); }); });
    expectNamed(thrown, "InvalidInput", big, what);
    EXPECT_LT(use.seconds, 2.0);
    EXPECT_LT(use.peak_growth_mb, 64.0) << (use.peak_reset ? "" : "(over the earlier peak)");
  };
  refusedQuickly("wrong magic");
  // With a database's header in front, the zeros declare empty blocks: the frame ends at byte 52.
  const std::vector<char> good = savedBytes(smallDatabase(false), dir_.file("good.bovwdb"));
  std::fstream patch(big, std::ios::in | std::ios::out | std::ios::binary);
  patch.write(good.data(), 16);
  patch.close();
  refusedQuickly("unexpected bytes after the last block (it ends at byte 52)");
}

TEST_F(DatabaseRefusals, AnIndexDeclaringMoreWordsThanItsVocabularyIsRefusedBeforeItsListsAreMade) {
  std::vector<char> bytes = savedBytes(smallDatabase(false), dir_.file("good.bovwdb"));
  const Block index = blocksOf(bytes)[1];
  poke<std::uint32_t>(bytes, index.begin + 16, 1u << 24);  // K, beside a vocabulary of 4
  reseal(bytes, index.begin, index.end);
  reseal(bytes, 0, bytes.size());
  const std::string path = dir_.file("mismatch.bovwdb");
  writeBytes(path, bytes);
  Thrown thrown;
  const ResourceUse use = measureResources([&] { thrown = thrownBy([&] { ImageDatabase::load(path); }); });
  expectNamed(thrown, "InvalidInput", path,
              "vocabulary mismatch: the index was built with K = 16777216, this vocabulary has 4");
  EXPECT_LT(use.seconds, 1.0);
  EXPECT_LT(use.peak_growth_mb, 64.0) << (use.peak_reset ? "" : "(over the earlier peak)");
}

// The keypoint block rebuilt from one entry per slot (none: nothing stored), each image keeping its
// one keypoint as written; the file's lengths and checksum made to match.
std::vector<char> withKeypointSlots(const std::vector<char>& good, const std::vector<bool>& stored) {
  const Block block = blocksOf(good)[2];
  // The stored images' entries as written, in id order: u32 n = 1, width, height, one keypoint.
  std::vector<std::vector<char>> entries;
  for (std::size_t at = block.begin + 4; at < block.end;) {
    const std::uint32_t n = valueAt<std::uint32_t>(good, at);
    const std::size_t size = n == 0xffffffffu ? 4 : 12 + 16 * std::size_t{n};
    if (n != 0xffffffffu) entries.emplace_back(good.begin() + at, good.begin() + at + size);
    at += size;
  }
  std::vector<char> keypoints;
  append<std::uint32_t>(keypoints, static_cast<std::uint32_t>(stored.size()));
  std::size_t next = 0;
  for (bool s : stored) {
    if (!s) append<std::uint32_t>(keypoints, 0xffffffffu);
    else {
      const std::vector<char>& entry = entries[next++ % entries.size()];
      keypoints.insert(keypoints.end(), entry.begin(), entry.end());
    }
  }
  std::vector<char> bytes(good.begin(), good.begin() + block.length_at);
  append<std::uint64_t>(bytes, keypoints.size());
  bytes.insert(bytes.end(), keypoints.begin(), keypoints.end());
  bytes.resize(bytes.size() + 8);
  reseal(bytes, 0, bytes.size());
  return bytes;
}

TEST_F(DatabaseRefusals, AKeypointBlockMustFitItsIndex) {
  const std::vector<char> good = savedBytes(smallDatabase(true), dir_.file("good.bovwdb"));
  ASSERT_EQ(withKeypointSlots(good, {true, false, true}), good);  // the rebuilding is faithful
  const std::string path = dir_.file("bad.bovwdb");
  auto refused = [&](const std::vector<bool>& stored, const std::string& what) {
    SCOPED_TRACE(what);
    writeBytes(path, withKeypointSlots(good, stored));
    expectNamed(thrownBy([&] { ImageDatabase::load(path); }), "InvalidInput", path + " (keypoints)", what);
  };
  refused({true, false, true, false}, "keypoints of 4 image ids, but the index has assigned 3");
  refused({true, false}, "keypoints of 2 image ids, but the index has assigned 3");
  refused({false, false, true}, "image id 0 is indexed but has no keypoints stored");
  refused({true, true, true}, "image id 1 is not an indexed image but has keypoints stored");

  // What save() writes loads, and every live image can be verified.
  const ImageDatabase loaded = ImageDatabase::load(dir_.file("good.bovwdb"));
  for (ImageId id : loaded.index().ids()) EXPECT_TRUE(loaded.keypoints(id).has_value()) << "id " << id;
  EXPECT_FALSE(loaded.keypoints(1).has_value());
}

}  // namespace
}  // namespace bovw::test
