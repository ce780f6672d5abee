// DescriptorType: the canonical names recorded in files, and the compatibility rule.
#include <bovw/descriptor_type.hpp>
#include <bovw/error.hpp>

#include <cctype>

namespace bovw {

namespace {

constexpr const char* kUnspecifiedName = "unspecified";
constexpr const char* kBinarySuffix = "-binary";

bool isValidFamily(const std::string& family) {
  if (family.empty() || !std::islower(static_cast<unsigned char>(family[0]))) return false;
  for (char c : family)
    if (!std::islower(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

}  // namespace

DescriptorType::DescriptorType(std::string family, int width, DescriptorElement element)
    : family_(std::move(family)), width_(width), element_(element) {
  // Digits would run into the width in the canonical name ("surf2" + 64): families are letters.
  if (!isValidFamily(family_) || family_ == kUnspecifiedName)
    throw InvalidInput("descriptor family '" + family_ + "': expected lower-case letters and '_' (e.g. surf, orb)");
  if (width_ < 0) throw InvalidInput("descriptor type " + family_ + ": negative width " + std::to_string(width_));
}

std::string DescriptorType::toString() const {
  if (isUnspecified()) return kUnspecifiedName;
  return family_ + (width_ > 0 ? std::to_string(width_) : "") +
         (element_ == DescriptorElement::BinaryUnpacked ? kBinarySuffix : "");
}

DescriptorType DescriptorType::parse(const std::string& text) {
  if (text == kUnspecifiedName) return unspecified();
  std::string rest = text;
  DescriptorElement element = DescriptorElement::Float32;
  const std::string suffix = kBinarySuffix;
  if (rest.size() > suffix.size() && rest.compare(rest.size() - suffix.size(), suffix.size(), suffix) == 0) {
    element = DescriptorElement::BinaryUnpacked;
    rest.resize(rest.size() - suffix.size());
  }
  std::size_t digits = rest.size();
  while (digits > 0 && std::isdigit(static_cast<unsigned char>(rest[digits - 1]))) --digits;
  const std::string family = rest.substr(0, digits), width = rest.substr(digits);
  // A width of at most 9 digits fits an int; a leading zero would not round-trip.
  if (!isValidFamily(family) || width.size() > 9 || (!width.empty() && width[0] == '0'))
    throw InvalidInput("unknown descriptor type '" + text +
                       "'; expected a family and a width such as surf64, sift128, orb256-binary, or unspecified");
  return DescriptorType(family, width.empty() ? 0 : std::stoi(width), element);
}

void checkCompatible(const DescriptorType& trained_on, int vocabulary_width, const DescriptorType& extracted,
                     const std::string& vocabulary_name) {
  const std::string which = vocabulary_name.empty() ? "the vocabulary" : "vocabulary '" + vocabulary_name + "'";
  const bool element_matches = trained_on.element() == extracted.element();
  const bool family_matches = trained_on.family() == extracted.family() ||
                              (trained_on.isGenericFloat() && extracted.element() == DescriptorElement::Float32);
  // The type first: "trained on sift128, not surf64" says what to change, a width mismatch does not.
  if (!trained_on.isUnspecified() && !(family_matches && element_matches)) {
    const std::string hint = trained_on.isGenericFloat()
                                 ? " (a generic float vocabulary takes float32 descriptors only)"
                                 : " (extract " + trained_on.family() + " features: --features " + trained_on.family() + ")";
    throw InvalidInput(which + " was trained on " + trained_on.toString() + " descriptors, not " + extracted.toString() +
                       hint);
  }
  if (vocabulary_width != extracted.width())
    throw InvalidInput(which + " (" + trained_on.toString() + ") has words of width " + std::to_string(vocabulary_width) +
                       " but the descriptors (" + extracted.toString() + ") have width " + std::to_string(extracted.width()));
}

}  // namespace bovw
