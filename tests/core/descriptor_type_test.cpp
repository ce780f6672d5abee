// DescriptorType: the names files record (those of earlier versions included), and the
// compatibility rule with its messages.
#include <bovw/descriptor_type.hpp>
#include <bovw/error.hpp>
#include <bovw/vocabulary.hpp>

#include <gtest/gtest.h>

namespace bovw {
namespace {

const DescriptorType kSurf64("surf", 64), kSurf128("surf", 128), kSift128("sift", 128),
    kOrb256("orb", 256, DescriptorElement::BinaryUnpacked);

TEST(DescriptorType, NamesOfEarlierVersionsParseToWhatTheyMeant) {
  EXPECT_EQ(DescriptorType::parse("surf64"), kSurf64);
  EXPECT_EQ(DescriptorType::parse("surf128"), kSurf128);
  EXPECT_EQ(DescriptorType::parse("sift128"), kSift128);
  EXPECT_TRUE(DescriptorType::parse("unspecified").isUnspecified());
  EXPECT_EQ(DescriptorType::parse("unspecified"), DescriptorType());
  const DescriptorType generic = DescriptorType::parse("float");  // KMeansOptions' old default
  EXPECT_TRUE(generic.isGenericFloat());
  EXPECT_EQ(generic.width(), 0);
  EXPECT_EQ(generic.element(), DescriptorElement::Float32);
}

TEST(DescriptorType, CanonicalNamesRoundTrip) {
  EXPECT_EQ(kOrb256.toString(), "orb256-binary");
  EXPECT_EQ(kSurf64.toString(), "surf64");
  EXPECT_EQ(DescriptorType().toString(), "unspecified");
  EXPECT_EQ(DescriptorType("float", 0).toString(), "float");
  for (const char* name : {"surf64", "surf128", "sift128", "orb256-binary", "float", "float32", "unspecified",
                           "akaze_mldb488-binary", "kaze64", "surf"}) {
    EXPECT_EQ(DescriptorType::parse(name).toString(), name);
  }
  EXPECT_EQ(DescriptorType::parse("orb256-binary"), kOrb256);
  EXPECT_NE(kOrb256, DescriptorType("orb", 256));  // the element type counts
  EXPECT_NE(kSurf64, kSurf128);
}

TEST(DescriptorType, MalformedNamesAreRefused) {
  for (const char* bad : {"", "64", "Surf64", "surf 64", "surf064", "surf-64", "-binary", "surf64-bits",
                          "surf12345678901", "s:urf"}) {
    EXPECT_THROW(DescriptorType::parse(bad), InvalidInput) << "'" << bad << "'";
  }
  EXPECT_THROW(DescriptorType("unspecified", 64), InvalidInput);  // the wildcard's name is no family
  EXPECT_THROW(DescriptorType("surf2", 64), InvalidInput);         // digits would merge with the width
  EXPECT_THROW(DescriptorType("surf", -1), InvalidInput);
}

std::string refusal(const DescriptorType& trained_on, int width, const DescriptorType& extracted) {
  try {
    checkCompatible(trained_on, width, extracted, "V.bovw");
  } catch (const InvalidInput& e) {
    return e.what();
  }
  return "";
}

TEST(CheckCompatible, SameTypeAndWidthPass) {
  for (const DescriptorType& type : {kSurf64, kSurf128, kSift128, kOrb256})
    EXPECT_NO_THROW(checkCompatible(type, type.width(), type)) << type.toString();
}

TEST(CheckCompatible, TheWildcardChecksOnlyTheWidth) {
  EXPECT_NO_THROW(checkCompatible(DescriptorType(), 64, kSurf64));
  EXPECT_NO_THROW(checkCompatible(DescriptorType(), 256, kOrb256));
  const std::string message = refusal(DescriptorType(), 128, kSurf64);
  EXPECT_NE(message.find("128"), std::string::npos) << message;
  EXPECT_NE(message.find("64"), std::string::npos) << message;
}

TEST(CheckCompatible, TheGenericFloatFamilyTakesAnyFloatFamilyButNotBits) {
  const DescriptorType generic = DescriptorType::parse("float");
  EXPECT_NO_THROW(checkCompatible(generic, 64, kSurf64));
  EXPECT_NO_THROW(checkCompatible(generic, 128, kSift128));
  const std::string message = refusal(generic, 256, kOrb256);
  EXPECT_NE(message.find("float"), std::string::npos) << message;
  EXPECT_NE(message.find("orb256-binary"), std::string::npos) << message;
  EXPECT_FALSE(refusal(generic, 128, kSurf64).empty());  // and the width still counts
}

TEST(CheckCompatible, OtherFamiliesAreRefusedNamingBothAndTheVocabulary) {
  struct Case {
    DescriptorType trained_on;
    DescriptorType extracted;
  };
  for (const Case& c : {Case{kSift128, kSurf128}, Case{kSift128, kSurf64}, Case{kSurf64, kOrb256},
                        Case{kOrb256, DescriptorType("orb", 256)}, Case{kSurf128, kSurf64}}) {
    const std::string message = refusal(c.trained_on, c.trained_on.width(), c.extracted);
    SCOPED_TRACE(c.trained_on.toString() + " vs " + c.extracted.toString());
    EXPECT_NE(message.find("V.bovw"), std::string::npos) << message;
    EXPECT_NE(message.find(c.trained_on.toString()), std::string::npos) << message;
    EXPECT_NE(message.find(c.extracted.toString()), std::string::npos) << message;
  }
  // A different family is named as such (what to change), not as a width mismatch.
  EXPECT_NE(refusal(kSift128, 128, kSurf128).find("trained on sift128 descriptors, not surf128"), std::string::npos);
}

TEST(VocabularyType, ARecordedWidthMustBeTheWordsWidth) {
  EXPECT_NO_THROW(Vocabulary(Descriptors::Zero(3, 64), kSurf64));
  EXPECT_THROW(Vocabulary(Descriptors::Zero(3, 128), kSurf64), InvalidInput);
  EXPECT_NO_THROW(Vocabulary(Descriptors::Zero(3, 128), DescriptorType::parse("float")));
  EXPECT_NO_THROW(checkCompatible(Vocabulary(Descriptors::Zero(3, 64)), kSurf64));
  EXPECT_THROW(checkCompatible(Vocabulary(Descriptors::Zero(3, 64), kSurf64), kSift128), InvalidInput);
}

TEST(VocabularyType, FingerprintsOfEarlierNamesAreUnchanged) {
  // The fingerprint hashes the canonical name, which for "surf64" is the name earlier versions
  // hashed: tests/data/formats/README.md records this vocabulary's fingerprint.
  Descriptors words(5, 64);
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 64; ++j) words(i, j) = static_cast<float>(i) * 0.5f - static_cast<float>(j) * 0.125f;
  EXPECT_EQ(Vocabulary(words, kSurf64).fingerprint(), 10107324123145791692ull);
}

}  // namespace
}  // namespace bovw
