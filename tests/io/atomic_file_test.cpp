// writeFileAtomically / writeFilesAtomically: a failed write leaves neither the target nor a
// temporary behind, and an existing target is untouched; a successful one leaves exactly the target;
// a full device is an IoError with the system's reason; the temporaries of killed runs are removed.
#include "support/io_test_support.hpp"

#include "io/checked_file_buffer.hpp"
#include "io/temporary_file.hpp"

#include <bovw/atomic_file.hpp>
#include <bovw/error.hpp>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

#include <cerrno>
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

TEST_F(AtomicFile, WhileWritingTheTemporaryIsBesideTheTargetAndNamedForIt) {
  std::set<std::string> during;
  writeFileAtomically(path("model.yml"), [&](std::ostream& out) {
    out << "%YAML:1.0\n";
    during = entries();
  });
  ASSERT_EQ(during.size(), 1u);
  const std::string temporary = *during.begin();
  EXPECT_TRUE(detail::isTemporaryName(temporary)) << temporary;
  EXPECT_EQ(temporary.rfind(".bovw-tmp-" + std::to_string(::getpid()) + "-", 0), 0u) << temporary;
  EXPECT_EQ(temporary.substr(temporary.size() - 10), "-model.yml") << temporary;
  EXPECT_EQ(entries(), std::set<std::string>{"model.yml"});
}

TEST_F(AtomicFile, TemporaryNamesAreRecognisedExactly) {
  for (const char* name : {".bovw-tmp-1-0-a", ".bovw-tmp-123-45-v.yml.gz", ".bovw-tmp-9-9-x-1-2"})
    EXPECT_TRUE(detail::isTemporaryName(name)) << name;
  for (const char* name : {".bovw-tmp-1-0-", ".bovw-tmp--0-a", ".bovw-tmp-1--a", ".bovw-tmp-x-0-a", "bovw-tmp-1-0-a",
                           ".bovw-tmp-1-a", "v.bovw", ".bovw-tmp-1"})
    EXPECT_FALSE(detail::isTemporaryName(name)) << name;
}

// A killed run leaves its temporary, unlocked; a live writer's is locked. The next write into the
// folder removes the first and keeps the second, and nothing that only looks like one.
TEST_F(AtomicFile, TheNextWriteRemovesTheTemporariesOfKilledRuns) {
  writeBytes(path(".bovw-tmp-999999-0-out.bin"), "abandoned by a killed run");
  writeBytes(path(".bovw-tmp-999999-1-other.npy"), "abandoned too, for another target");
  writeBytes(path(".bovw-tmp-x-0-out.bin"), "not bovw's name");
  writeBytes(path("notes.txt"), "the user's");
  writeBytes(path(".bovw-tmp-999998-0-out.bin"), "being written");
  const int live = ::open(path(".bovw-tmp-999998-0-out.bin").c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(live, 0);
  ASSERT_EQ(::flock(live, LOCK_EX | LOCK_NB), 0);
  writeFileAtomically(path("out.bin"), [](std::ostream& out) { out << "new"; });
  ::close(live);
  EXPECT_EQ(entries(), (std::set<std::string>{"out.bin", ".bovw-tmp-x-0-out.bin", "notes.txt",
                                              ".bovw-tmp-999998-0-out.bin"}));
  EXPECT_EQ(readBytes(path("out.bin")), "new");
}

// The real thing: a process killed in the middle of a write (no destructor, no cleanup) leaves its
// temporary; the next write removes it.
TEST_F(AtomicFile, AWriterKilledMidWriteLeavesATemporaryThatTheNextWriteRemoves) {
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    detail::TemporaryFile temporary(path("out.bin"));
    temporary.stream() << std::string(200000, 'x');
    temporary.stream().flush();
    ::kill(::getpid(), SIGKILL);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status));
  const auto left = entries();
  ASSERT_EQ(left.size(), 1u);
  EXPECT_TRUE(detail::isTemporaryName(*left.begin())) << *left.begin();
  writeFileAtomically(path("out.bin"), [](std::ostream& out) { out << "complete"; });
  EXPECT_EQ(entries(), std::set<std::string>{"out.bin"});
  EXPECT_EQ(readBytes(path("out.bin")), "complete");
}

TEST_F(AtomicFile, AFullDeviceIsAnErrorWithTheSystemsReason) {
  const int fd = ::open("/dev/full", O_WRONLY | O_CLOEXEC);
  if (fd < 0) GTEST_SKIP() << "no /dev/full on this system";
  detail::CheckedFileBuffer buffer(fd);
  std::ostream out(&buffer);
  out << "a few bytes stay in the buffer";
  EXPECT_EQ(buffer.error(), 0);
  out << std::string(1 << 17, 'x');  // more than the buffer: written, and refused
  EXPECT_FALSE(out.good());
  EXPECT_FALSE(buffer.drain());
  EXPECT_EQ(buffer.error(), ENOSPC);
  ::close(fd);
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

// PreparedFiles: the two phases apart. Prepared, only temporaries exist (an old target untouched);
// committed, exactly the targets; dropped uncommitted, nothing is left and the old target stays.
TEST_F(AtomicFile, PreparedFilesLandOnlyWhenCommitted) {
  writeBytes(path("a.bin"), "old a");
  const std::vector<StreamWrite> writes = {{path("a.bin"), [](std::ostream& out) { out << "new a"; }},
                                           {path("b.bin"), [](std::ostream& out) { out << "new b"; }}};
  {
    PreparedFiles prepared(writes);
    EXPECT_EQ(readBytes(path("a.bin")), "old a");
    EXPECT_EQ(entries().size(), 3u);  // a.bin and two temporaries
    EXPECT_EQ(entries().count("b.bin"), 0u);
  }
  EXPECT_EQ(entries(), std::set<std::string>{"a.bin"});
  EXPECT_EQ(readBytes(path("a.bin")), "old a");
  PreparedFiles prepared(writes);
  PreparedFiles moved = std::move(prepared);
  moved.commit();
  EXPECT_EQ(entries(), (std::set<std::string>{"a.bin", "b.bin"}));
  EXPECT_EQ(readBytes(path("a.bin")), "new a");
  EXPECT_EQ(readBytes(path("b.bin")), "new b");
}

// A target that is a directory is refused before anything is written.
TEST_F(AtomicFile, PreparedFilesRefuseADirectoryTargetUpFront) {
  std::filesystem::create_directory(path("adir"));
  bool wrote = false;
  EXPECT_THROW(PreparedFiles({{path("first.bin"), [&](std::ostream&) { wrote = true; }},
                              {path("adir"), [](std::ostream& out) { out << "2"; }}}),
               IoError);
  EXPECT_FALSE(wrote);
  EXPECT_EQ(entries(), std::set<std::string>{"adir"});
}

// StreamedFiles: written piece by piece (more than the buffer and the writeback step, with a seek
// back into the first megabytes), the targets appear only on commit; dropped uncommitted, nothing
// is left and an old target stays.
TEST_F(AtomicFile, StreamedFilesLandOnlyWhenCommittedWithTheirSeeksApplied) {
  writeBytes(path("a.bin"), "old a");
  std::string expected_a;
  for (int i = 0; i < 20000; ++i) expected_a += std::string(1000, static_cast<char>('a' + i % 26));
  std::string expected_b = "names\n";
  {
    StreamedFiles streamed({path("a.bin"), path("b.bin")});
    streamed.stream(0) << expected_a;
    streamed.stream(1) << expected_b;
    EXPECT_EQ(readBytes(path("a.bin")), "old a");
    EXPECT_EQ(entries().size(), 3u);  // a.bin and two temporaries
  }
  EXPECT_EQ(entries(), std::set<std::string>{"a.bin"});
  EXPECT_EQ(readBytes(path("a.bin")), "old a");

  StreamedFiles streamed({path("a.bin"), path("b.bin")});
  std::ostream& a = streamed.stream(0);
  a << expected_a;
  a.seekp(1234567);
  a << "HEADER";
  a.seekp(0, std::ios_base::end);
  a << "tail";
  expected_a.replace(1234567, 6, "HEADER");
  expected_a += "tail";
  streamed.stream(1) << expected_b;
  StreamedFiles moved = std::move(streamed);
  moved.commit();
  EXPECT_EQ(entries(), (std::set<std::string>{"a.bin", "b.bin"}));
  EXPECT_TRUE(readBytes(path("a.bin")) == expected_a);
  EXPECT_EQ(readBytes(path("b.bin")), expected_b);
}

TEST_F(AtomicFile, StreamedFilesRefuseADirectoryTargetUpFront) {
  std::filesystem::create_directory(path("adir"));
  EXPECT_THROW(StreamedFiles({path("first.bin"), path("adir")}), IoError);
  EXPECT_EQ(entries(), std::set<std::string>{"adir"});
}

// --- writeProblem: the check before the work ------------------------------------------------------

TEST_F(AtomicFile, WriteProblemIsNothingForAWritableTargetAndLeavesNothing) {
  EXPECT_EQ(writeProblem(path("new.bin")), std::nullopt);
  writeBytes(path("old.bin"), "kept");
  EXPECT_EQ(writeProblem(path("old.bin")), std::nullopt);
  EXPECT_EQ(entries(), std::set<std::string>{"old.bin"});  // the probe's temporary is gone
  EXPECT_EQ(readBytes(path("old.bin")), "kept");
}

// Each problem is the one the write itself meets, said of what to fix; nothing is created.
TEST_F(AtomicFile, WriteProblemNamesTheFolderOrTheTarget) {
  std::filesystem::create_directory(path("adir"));
  writeBytes(path("afile"), "x");
  EXPECT_EQ(writeProblem(path("adir")), "it is a directory");
  EXPECT_EQ(writeProblem(path("missing/out.bin")), "the folder '" + path("missing") + "' does not exist");
  EXPECT_EQ(writeProblem(path("afile/out.bin")), "'" + path("afile") + "' is not a folder");
  EXPECT_EQ(writeProblem(""), "the path is empty");
  std::filesystem::create_symlink("loop", path("loop"));
  EXPECT_EQ(writeProblem(path("loop")), "Too many levels of symbolic links");
  EXPECT_EQ(entries(), (std::set<std::string>{"adir", "afile", "loop"}));
  // The same words from the write that fails.
  try {
    writeFileAtomically(path("missing/out.bin"), [](std::ostream& out) { out << "x"; });
    ADD_FAILURE() << "no exception";
  } catch (const IoError& e) {
    EXPECT_EQ(std::string(e.what()),
              "cannot write '" + path("missing/out.bin") + "': the folder '" + path("missing") + "' does not exist");
  }
}

// Root writes in a folder without write permission: the check then rightly finds no problem.
TEST_F(AtomicFile, WriteProblemFindsAFolderWithoutWritePermission) {
  if (::geteuid() == 0) GTEST_SKIP() << "root ignores write permissions";
  std::filesystem::create_directory(path("ro"));
  std::filesystem::permissions(path("ro"), std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec);
  const auto problem = writeProblem(path("ro/out.bin"));
  std::filesystem::permissions(path("ro"), std::filesystem::perms::owner_all);
  EXPECT_EQ(problem, "cannot write in folder '" + path("ro") + "': Permission denied");
}

}  // namespace
}  // namespace bovw::test
