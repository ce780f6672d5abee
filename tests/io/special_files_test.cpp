// Inputs that are not regular files, and files that declare more than they hold (issue 19): every
// reader opens through io/file_bytes.hpp, which refuses a FIFO without waiting for a writer, a
// device such as /dev/zero without reading it, a directory and a socket, each named; a sparse 2 GB
// file given as a .npy, a .bovw vocabulary or an index is refused from its first bytes, in
// milliseconds and without memory; an index of another vocabulary is refused before its lists are
// allocated.
#include "io/file_bytes.hpp"
#include "support/io_test_support.hpp"
#include "support/refusal_checks.hpp"
#include "support/resealing.hpp"

#include <bovw/error.hpp>
#include <bovw/input_file.hpp>
#include <bovw/inverted_index.hpp>
#include <bovw/npy.hpp>
#include <bovw/retrieval_metrics.hpp>
#include <bovw/vocabulary_io.hpp>

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <functional>
#include <sstream>

namespace bovw::test {
namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

class SpecialFiles : public ScratchDirTest {
 protected:
  void SetUp() override {
    ScratchDirTest::SetUp();
    fifo_ = path("pipe");
    ASSERT_EQ(::mkfifo(fifo_.c_str(), 0600), 0);
  }

  Thrown withoutBlocking(const std::function<void()>& call) { return withoutBlockingOn(fifo_, call); }

  // An IoError naming `file` and saying what it is.
  static void expectRefused(const Thrown& thrown, const std::string& file, const std::string& what) {
    EXPECT_EQ(thrown.kind, "IoError") << thrown.message;
    EXPECT_TRUE(contains(thrown.message, "'" + file + "' is " + what)) << thrown.message;
  }

  // A link named `name` (the extension chooses the reader) to `target`.
  std::string linkTo(const std::string& target, const std::string& name) {
    const std::string link = path(name);
    EXPECT_EQ(::symlink(target.c_str(), link.c_str()), 0);
    return link;
  }

  std::string fifo_;
};

TEST_F(SpecialFiles, InputFileSaysWhatItRefuses) {
  expectRefused(withoutBlocking([&] { detail::InputFile file(fifo_); }), fifo_,
                "a FIFO (named pipe), not a regular file");
  expectRefused(thrownBy([&] { detail::InputFile file(dir_.string()); }), dir_.string(), "a directory");
  expectRefused(thrownBy([&] { detail::InputFile file(dir_.string(), "an image file"); }), dir_.string(),
                "a directory, not an image file");
  expectRefused(thrownBy([] { detail::InputFile file("/dev/zero"); }), "/dev/zero", "a character device");
  // A link is followed: to a FIFO it is refused as one.
  const std::string link = linkTo(fifo_, "link");
  expectRefused(withoutBlocking([&] { detail::InputFile file(link); }), link, "a FIFO");

  // A socket cannot even be opened (ENXIO): it is still named for what it is.
  const std::string socket_path = path("socket");
  const int s = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(s, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  ASSERT_LT(socket_path.size(), sizeof address.sun_path);
  std::strcpy(address.sun_path, socket_path.c_str());
  ASSERT_EQ(::bind(s, reinterpret_cast<const sockaddr*>(&address), sizeof address), 0);
  expectRefused(thrownBy([&] { detail::InputFile file(socket_path); }), socket_path, "a socket");
  ::close(s);

  const Thrown missing = thrownBy([&] { detail::InputFile file(path("missing")); });
  EXPECT_EQ(missing.kind, "IoError");
  EXPECT_TRUE(contains(missing.message, "cannot open '" + path("missing") + "'")) << missing.message;
}

TEST_F(SpecialFiles, InputFileReadsARegularFileThroughALinkAndNoFurtherThanItsSize) {
  writeBytes(path("data"), "0123456789");
  detail::InputFile file(linkTo(path("data"), "data-link"));
  EXPECT_EQ(file.size(), 10u);
  char bytes[16] = {};
  file.read(bytes, 4);
  EXPECT_EQ(std::string(bytes, 4), "0123");
  EXPECT_EQ(file.readSome(bytes, sizeof bytes), 6u);
  EXPECT_EQ(std::string(bytes, 6), "456789");
  EXPECT_EQ(file.readSome(bytes, sizeof bytes), 0u);
  file.seek(2);
  EXPECT_EQ(file.readRest(), std::vector<char>({'2', '3', '4', '5', '6', '7', '8', '9'}));
  file.seek(8);
  EXPECT_THROW(file.read(bytes, 3), IoError);  // past the end
  EXPECT_THROW(file.seek(11), IoError);

  EXPECT_EQ(readInputFile(path("data")), "0123456789");
  expectRefused(withoutBlocking([&] { readInputFile(fifo_); }), fifo_, "a FIFO");
}

TEST_F(SpecialFiles, EveryReaderRefusesAFifoAndADeviceWithoutReadingThem) {
  const std::vector<std::pair<const char*, std::function<void(const std::string&)>>> readers = {
      {".npy", [](const std::string& p) { npy::readFloat32Matrix(p); }},
      {".npy", [](const std::string& p) { npy::readFloat32MatrixShape(p); }},
      {".npy", [](const std::string& p) { npy::readInt64Vector(p); }},
      {".bovw", [](const std::string& p) { loadVocabulary(p); }},
      {".npy", [](const std::string& p) { loadVocabulary(p); }},
      {".idx", [](const std::string& p) { InvertedIndex::load(p); }},
      {".csv", [](const std::string& p) { readGroupsCsv(p); }},
  };
  int n = 0;
  for (const auto& [extension, read] : readers) {
    const std::string name = "reader" + std::to_string(n++) + extension;
    SCOPED_TRACE(name);
    const std::string pipe = linkTo(fifo_, name);
    expectRefused(withoutBlocking([&] { read(pipe); }), pipe, "a FIFO");
    const std::string zero = linkTo("/dev/zero", "zero-" + name);
    const ResourceUse use =
        measureResources([&] { expectRefused(thrownBy([&] { read(zero); }), zero, "a character device"); });
    EXPECT_LT(use.seconds, 2.0);
    EXPECT_LT(use.peak_growth_mb, 64.0);
  }
  // OpenCV FileStorage opens by name: the FIFO is refused before it is handed over (or, in a build
  // without OpenCV, the format is refused; either way nothing waits).
  const std::string yml = linkTo(fifo_, "vocabulary.yml");
  const Thrown thrown = withoutBlocking([&] { loadVocabulary(yml); });
  EXPECT_TRUE(contains(thrown.message, "FIFO") || contains(thrown.message, "needs a bovw built with OpenCV"))
      << thrown.message;
}

// ftruncate makes the file without writing (or storing) its 2 GB of zeros.
TEST_F(SpecialFiles, ASparse2GBFileIsRefusedFromItsFirstBytes) {
  const std::string big = path("big");
  const int fd = ::open(big.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::ftruncate(fd, (off_t{1} << 31) + 12345), 0);
  ::close(fd);
  const std::vector<std::pair<std::string, std::function<void(const std::string&)>>> readers = {
      {"big.npy", [](const std::string& p) { npy::readFloat32Matrix(p); }},
      {"big-vector.npy", [](const std::string& p) { npy::readInt64Vector(p); }},
      {"big.bovw", [](const std::string& p) { loadVocabulary(p); }},
      {"big-vocabulary.npy", [](const std::string& p) { loadVocabulary(p); }},
      {"big.index", [](const std::string& p) { InvertedIndex::load(p); }},
  };
  for (const auto& [name, read] : readers) {
    SCOPED_TRACE(name);
    const std::string file = linkTo(big, name);
    Thrown thrown;
    const ResourceUse use = measureResources([&] { thrown = thrownBy([&] { read(file); }); });
    EXPECT_EQ(thrown.kind, "InvalidInput") << thrown.message;
    EXPECT_TRUE(contains(thrown.message, "magic")) << thrown.message;
    EXPECT_TRUE(contains(thrown.message, file)) << thrown.message;
    EXPECT_LT(use.seconds, 2.0);
    EXPECT_LT(use.peak_growth_mb, 64.0) << (use.peak_reset ? "" : "(over the earlier peak)");
  }
}

std::vector<char> bytesOf(const InvertedIndex& index) {
  std::ostringstream out;
  index.write(out);
  const std::string text = out.str();
  return std::vector<char>(text.begin(), text.end());
}

// An index block beside a vocabulary of K = 4 that declares K = 2^24 (the most an index may):
// refused for the mismatch before 2^24 posting lists (400 MB) are made.
TEST_F(SpecialFiles, AnIndexOfAnotherVocabularyIsRefusedBeforeItsListsAreAllocated) {
  const VocabularySignature small{4, 64, DescriptorType::parse("surf64"), 0};
  std::vector<char> bytes = bytesOf(InvertedIndex(small));
  const std::uint32_t huge = 1u << 24;
  detail::encodeLittleEndian(huge, reinterpret_cast<unsigned char*>(bytes.data() + 16));  // K
  reseal(bytes, 0, bytes.size());
  Thrown thrown;
  const ResourceUse use =
      measureResources([&] { thrown = thrownBy([&] { InvertedIndex::read(bytes, "mem", small); }); });
  EXPECT_EQ(thrown.kind, "InvalidInput");
  EXPECT_EQ(thrown.message, "vocabulary mismatch: the index was built with K = 16777216, this vocabulary has 4");
  EXPECT_LT(use.peak_growth_mb, 64.0) << (use.peak_reset ? "" : "(over the earlier peak)");
  EXPECT_LT(use.seconds, 1.0);

  // The same expectation of a matching index reads it as read() without one does.
  const std::vector<char> good = bytesOf(InvertedIndex(small));
  EXPECT_EQ(InvertedIndex::read(good, "mem", small).vocabulary().words, 4);
  EXPECT_THROW(InvertedIndex::read(good, "mem", VocabularySignature{4, 128, DescriptorType::parse("surf128"), 0}),
               InvalidInput);
}

}  // namespace
}  // namespace bovw::test
