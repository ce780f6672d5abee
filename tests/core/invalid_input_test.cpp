// InvalidInput carries the files it is about: the message names them once, whichever layer
// throws, and namingFile adds a file only to an error that names none.
#include <bovw/error.hpp>

#include <gtest/gtest.h>

namespace bovw::test {
namespace {

TEST(InvalidInput, NamesItsFilesInFrontOfTheProblem) {
  const InvalidInput none("K = 0 words");
  EXPECT_STREQ(none.what(), "K = 0 words");
  EXPECT_TRUE(none.files().empty());
  EXPECT_EQ(none.problem(), "K = 0 words");

  const InvalidInput one("v.npy", "K = 0 words");
  EXPECT_STREQ(one.what(), "'v.npy': K = 0 words");
  EXPECT_EQ(one.files(), std::vector<std::string>{"v.npy"});
  EXPECT_EQ(one.problem(), "K = 0 words");

  const InvalidInput two(std::vector<std::string>{"X.npy", "C.npy"}, "widths differ");
  EXPECT_STREQ(two.what(), "'X.npy' with 'C.npy': widths differ");
}

TEST(InvalidInput, NamingFileAddsTheFileOnlyWhereNoneIsNamed) {
  try {
    namingFile("outer.npy", [] { throw InvalidInput("row 3 contains NaN"); });
    ADD_FAILURE() << "no exception";
  } catch (const InvalidInput& e) {
    EXPECT_STREQ(e.what(), "'outer.npy': row 3 contains NaN");
  }
  try {
    namingFile("outer.bovwdb", [] { throw InvalidInput("inner.bovw", "bad magic"); });
    ADD_FAILURE() << "no exception";
  } catch (const InvalidInput& e) {
    EXPECT_STREQ(e.what(), "'inner.bovw': bad magic") << "the innermost file is the one that is wrong";
  }
  EXPECT_EQ(namingFile("f", [] { return 42; }), 42);
  EXPECT_THROW(namingFile("f", [] { throw IoError("disk"); }), IoError);  // other errors pass unchanged
}

}  // namespace
}  // namespace bovw::test
