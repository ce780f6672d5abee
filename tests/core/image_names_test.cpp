// bovw::imageNameProblem and printableName against an independent UTF-8 validator: glibc's iconv,
// which refuses the same malformed sequences (RFC 3629: overlong forms, surrogates, > U+10FFFF).
#include <bovw/image_names.hpp>

#include <gtest/gtest.h>
#include <iconv.h>

#include <random>
#include <string>
#include <vector>

namespace {

bool iconvAcceptsUtf8(const std::string& text) {
  iconv_t converter = iconv_open("UTF-32LE", "UTF-8");
  if (converter == reinterpret_cast<iconv_t>(-1)) throw std::runtime_error("iconv_open failed");
  std::string in = text;
  std::vector<char> out(4 * text.size() + 4);
  char* in_at = in.data();
  char* out_at = out.data();
  std::size_t in_left = in.size(), out_left = out.size();
  const std::size_t converted = iconv(converter, &in_at, &in_left, &out_at, &out_left);
  iconv_close(converter);
  return converted != static_cast<std::size_t>(-1) && in_left == 0;
}

bool hasControl(const std::string& text) {
  for (unsigned char c : text)
    if (c < 0x20 || c == 0x7f) return true;
  return false;
}

TEST(ImageNames, AcceptsPrintableUtf8) {
  for (const std::string name : {"a.png", "dir/sub dir/comma, \"quote\".jpg", "caf\xc3\xa9.png",
                                 "\xe7\x94\xbb\xe5\x83\x8f.png", "\xf0\x9f\x93\xb7 photo.jpg", "\xf4\x8f\xbf\xbf"}) {
    EXPECT_EQ(bovw::imageNameProblem(name), std::nullopt) << name;
    EXPECT_EQ(bovw::printableName(name), name);
  }
}

TEST(ImageNames, RefusesWhatAnOutputCannotHold) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "is empty"},
      {"new\nline.png", "holds a control character (\\x0a)"},
      {"cr\r.png", "holds a control character (\\x0d)"},
      {std::string("nul\0.png", 8), "holds a control character (\\x00)"},
      {"del\x7f.png", "holds a control character (\\x7f)"},
      {"caf\xe9.png", "is not valid UTF-8 (byte \\xe9)"},          // Latin-1
      {"\xc0\xaf.png", "is not valid UTF-8 (byte \\xc0)"},         // overlong '/'
      {"\xe0\x80\xaf.png", "is not valid UTF-8 (byte \\xe0)"},     // overlong, 3 bytes
      {"\xed\xa0\x80.png", "is not valid UTF-8 (byte \\xed)"},     // a surrogate (CESU-8)
      {"\xf4\x90\x80\x80.png", "is not valid UTF-8 (byte \\xf4)"},  // above U+10FFFF
      {"\x80.png", "is not valid UTF-8 (byte \\x80)"},             // a lone continuation byte
      {"trunc\xe7\x94", "is not valid UTF-8 (byte \\xe7)"},        // cut in the middle of a sequence
  };
  for (const auto& [name, problem] : cases) EXPECT_EQ(bovw::imageNameProblem(name), problem) << bovw::printableName(name);
}

TEST(ImageNames, PrintableNameEscapesOnlyWhatIsNotPrintableText) {
  EXPECT_EQ(bovw::printableName("new\nline\xe9\\x.png"), "new\\x0aline\\xe9\\x5cx.png");
  EXPECT_EQ(bovw::printableName("caf\xc3\xa9\t"), "caf\xc3\xa9\\x09");
}

// Random byte strings, biased towards UTF-8 lead and continuation bytes so that long valid and
// nearly valid sequences are common: the verdict must be iconv's (plus the control-character rule),
// and the printable form must be valid, control-free UTF-8 that keeps every valid character.
TEST(ImageNames, AgreesWithIconvOnRandomBytes) {
  const unsigned seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 random(seed);
  const std::vector<unsigned char> pool = {'a', '/', '.', 0x0a, 0x7f, 0x80, 0x8f, 0x9f, 0xa0, 0xbf, 0xc0, 0xc2,
                                           0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff};
  int valid = 0;
  for (int trial = 0; trial < 200000; ++trial) {
    std::string name(1 + random() % 7, '\0');
    for (char& c : name)
      c = static_cast<char>(random() % 2 ? pool[random() % pool.size()] : static_cast<unsigned char>(random() % 256));
    const bool expected = iconvAcceptsUtf8(name) && !hasControl(name);
    ASSERT_EQ(!bovw::imageNameProblem(name).has_value(), expected) << bovw::printableName(name);
    valid += expected;
    const std::string printable = bovw::printableName(name);
    ASSERT_TRUE(iconvAcceptsUtf8(printable) && !hasControl(printable)) << printable;
  }
  EXPECT_GT(valid, 1000);  // the generator does reach valid multi-byte names
}

}  // namespace
