// writeFileAtomically / writePathAtomically: a failed write leaves neither the target nor a
// temporary behind, and an existing target is untouched; a successful one leaves exactly the target.
#include "io_test_support.hpp"

#include <bovw/atomic_file.hpp>
#include <bovw/error.hpp>

#include <stdexcept>

namespace bovw::test {
namespace {

struct WriterFailed : std::runtime_error {
  WriterFailed() : std::runtime_error("writer failed on purpose") {}
};

class AtomicFile : public ScratchDirTest {};

TEST_F(AtomicFile, SuccessLeavesExactlyTheTarget) {
  writeFileAtomically(path("out.bin"), [](std::ostream& out) { out << "hello\n" << std::string(100000, 'z'); });
  EXPECT_EQ(readBytes(path("out.bin")), "hello\n" + std::string(100000, 'z'));
  EXPECT_EQ(entries(), std::set<std::string>{"out.bin"});
  // Replacing an existing file.
  writeFileAtomically(path("out.bin"), [](std::ostream& out) { out << "second"; });
  EXPECT_EQ(readBytes(path("out.bin")), "second");
  EXPECT_EQ(entries(), std::set<std::string>{"out.bin"});
}

TEST_F(AtomicFile, ThrowingWriterLeavesNoTargetAndNoTemporary) {
  EXPECT_THROW(writeFileAtomically(path("out.bin"),
                                   [](std::ostream& out) {
                                     out << std::string(1 << 20, 'x');  // half-written data on disk
                                     out.flush();
                                     throw WriterFailed();
                                   }),
               WriterFailed);  // the writer's own exception, unchanged
  EXPECT_TRUE(entries().empty()) << "left behind: " << *entries().begin();
}

TEST_F(AtomicFile, ThrowingWriterLeavesAnExistingTargetUntouched) {
  writeBytes(path("out.bin"), "original contents");
  EXPECT_THROW(writeFileAtomically(path("out.bin"),
                                   [](std::ostream& out) {
                                     out << "replacement that never lands";
                                     out.flush();
                                     throw WriterFailed();
                                   }),
               WriterFailed);
  EXPECT_EQ(readBytes(path("out.bin")), "original contents");
  EXPECT_EQ(entries(), std::set<std::string>{"out.bin"});
}

TEST_F(AtomicFile, PathWriterGetsATemporaryBesideTheTarget) {
  std::string temporary;
  writePathAtomically(path("model.yml"), [&](const std::string& p) {
    temporary = p;
    writeBytes(p, "%YAML:1.0\n");
  });
  EXPECT_NE(temporary, path("model.yml"));
  EXPECT_EQ(std::filesystem::path(temporary).parent_path(), dir_) << "rename is atomic only within a file system";
  EXPECT_EQ(std::filesystem::path(temporary).extension(), ".yml") << "writers that pick a format by extension";
  EXPECT_EQ(readBytes(path("model.yml")), "%YAML:1.0\n");
  EXPECT_EQ(entries(), std::set<std::string>{"model.yml"});
}

TEST_F(AtomicFile, ThrowingPathWriterLeavesNothingAndKeepsTheOldFile) {
  writeBytes(path("model.yml"), "old");
  EXPECT_THROW(writePathAtomically(path("model.yml"),
                                   [&](const std::string& p) {
                                     writeBytes(p, "partial");
                                     throw WriterFailed();
                                   }),
               WriterFailed);
  EXPECT_EQ(readBytes(path("model.yml")), "old");
  EXPECT_EQ(entries(), std::set<std::string>{"model.yml"});
}

TEST_F(AtomicFile, PathWriterThatCreatesNothingIsAnIoError) {
  EXPECT_THROW(writePathAtomically(path("nothing.bin"), [](const std::string&) {}), IoError);
  EXPECT_TRUE(entries().empty());
}

TEST_F(AtomicFile, MissingDirectoryOrEmptyPathIsAnIoError) {
  const std::string target = path("missing/out.bin");
  try {
    writeFileAtomically(target, [](std::ostream& out) { out << "x"; });
    ADD_FAILURE() << "no exception";
  } catch (const IoError& e) {
    EXPECT_NE(std::string(e.what()).find(target), std::string::npos) << e.what();
  }
  EXPECT_THROW(writeFileAtomically("", [](std::ostream& out) { out << "x"; }), IoError);
  EXPECT_TRUE(entries().empty());
}

TEST_F(AtomicFile, ExistingDirectoryAsTargetIsAnIoErrorAndLeavesNoTemporary) {
  std::filesystem::create_directory(path("adir"));
  writeBytes(path("adir/inside"), "x");
  EXPECT_THROW(writeFileAtomically(path("adir"), [](std::ostream& out) { out << "data"; }), IoError);
  EXPECT_EQ(entries(), std::set<std::string>{"adir"});
  EXPECT_EQ(readBytes(path("adir/inside")), "x");
}

// --- Several files, all or nothing (writeFilesAtomically) ---------------------------------------------

TEST_F(AtomicFile, SeveralFilesAllLand) {
  writeBytes(path("b.bin"), "old b");
  writeFilesAtomically({{path("a.bin"), [](std::ostream& out) { out << "new a"; }},
                        {path("b.bin"), [](std::ostream& out) { out << "new b"; }}});
  EXPECT_EQ(readBytes(path("a.bin")), "new a");
  EXPECT_EQ(readBytes(path("b.bin")), "new b");
  EXPECT_EQ(entries(), (std::set<std::string>{"a.bin", "b.bin"}));
}

TEST_F(AtomicFile, SeveralFilesOneWriterThrowsNoneLand) {
  writeBytes(path("a.bin"), "old a");
  EXPECT_THROW(writeFilesAtomically({{path("a.bin"), [](std::ostream& out) { out << "new a"; }},
                                     {path("b.bin"), [](std::ostream& out) { out << "half"; throw WriterFailed(); }},
                                     {path("c.bin"), [](std::ostream& out) { out << "new c"; }}}),
               WriterFailed);
  EXPECT_EQ(readBytes(path("a.bin")), "old a");
  EXPECT_EQ(entries(), std::set<std::string>{"a.bin"});
}

TEST_F(AtomicFile, SeveralFilesOneUncreatableNoneLand) {
  EXPECT_THROW(writeFilesAtomically({{path("a.bin"), [](std::ostream& out) { out << "new a"; }},
                                     {path("missing/b.bin"), [](std::ostream& out) { out << "b"; }}}),
               IoError);
  EXPECT_TRUE(entries().empty());
}

// The rename of the second target fails (it is a directory) after every temporary was written:
// the header promises all or nothing, and no temporary may be left in any case.
TEST_F(AtomicFile, SeveralFilesFailingRenameLeavesNoTemporaryAndNoPartialCommit) {
  std::filesystem::create_directory(path("adir"));
  writeBytes(path("adir/inside"), "x");
  EXPECT_THROW(writeFilesAtomically({{path("first.bin"), [](std::ostream& out) { out << "1"; }},
                                     {path("adir"), [](std::ostream& out) { out << "2"; }},
                                     {path("third.bin"), [](std::ostream& out) { out << "3"; }}}),
               IoError);
  const auto left = entries();
  for (const auto& name : left)
    EXPECT_EQ(name.find(".bovw-tmp"), std::string::npos) << "temporary left behind: " << name;
  EXPECT_EQ(left.count("first.bin"), 0u) << "first.bin was committed although the job failed";
  EXPECT_EQ(left.count("third.bin"), 0u);
}

}  // namespace
}  // namespace bovw::test
