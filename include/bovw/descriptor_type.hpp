// What a descriptor is, as one value: the family that made it ("surf", "sift", "orb", ...), its
// width in floats, and what its elements mean. Vocabularies, index signatures and extractors all
// carry one, and checkCompatible() decides whether an extractor's descriptors may be assigned to a
// vocabulary's words.
#pragma once

#include <string>

namespace bovw {

// What the D floats of a descriptor hold. Every descriptor reaches the histogram core as float32;
// binary descriptors (ORB's 256 bits) arrive unpacked, one bit per float (0 or 1), so that the
// squared L2 distance the core computes equals their Hamming distance.
enum class DescriptorElement { Float32, BinaryUnpacked };

class DescriptorType {
 public:
  // The wildcard: descriptors whose origin was not recorded (a .npy vocabulary, a file of an older
  // bovw). Only the width is checked against it.
  DescriptorType() = default;
  static DescriptorType unspecified() { return {}; }

  // `family`: lower-case letters, digits after the first letter and '_' (e.g. "surf", "orb").
  // "float" is the generic family: float32 vectors of an unnamed extractor, which any float32
  // family matches. `width` 0 means "not recorded" (the vocabulary's D then counts).
  // Throws InvalidInput for a malformed family or a negative width.
  DescriptorType(std::string family, int width, DescriptorElement element = DescriptorElement::Float32);

  // The canonical form recorded in files: family + width (+ "-binary" for unpacked binary
  // descriptors): "surf64", "surf128", "sift128", "orb256-binary"; "float" (the generic family,
  // width not recorded) and "unspecified" (the wildcard). parse(toString()) == *this, and the
  // strings of earlier bovw versions parse to the types they meant. parse throws InvalidInput
  // for anything else.
  std::string toString() const;
  static DescriptorType parse(const std::string& text);

  bool isUnspecified() const { return family_.empty(); }
  bool isGenericFloat() const { return family_ == kGenericFamily; }
  const std::string& family() const { return family_; }  // "" for the wildcard
  int width() const { return width_; }                    // 0: not recorded
  DescriptorElement element() const { return element_; }

  friend bool operator==(const DescriptorType& a, const DescriptorType& b) {
    return a.family_ == b.family_ && a.width_ == b.width_ && a.element_ == b.element_;
  }
  friend bool operator!=(const DescriptorType& a, const DescriptorType& b) { return !(a == b); }

  static constexpr const char* kGenericFamily = "float";

 private:
  std::string family_;
  int width_ = 0;
  DescriptorElement element_ = DescriptorElement::Float32;
};

// Throws InvalidInput, naming both types, unless descriptors of type `extracted` can be assigned to
// the words of a vocabulary of type `trained_on` and width `vocabulary_width`:
//   - the wildcard accepts any family; the generic "float" family any float32 family;
//     otherwise families and element types must be equal;
//   - the widths must equal (the descriptors' against the vocabulary's D).
// `vocabulary_name` (a file, or empty) names the vocabulary in the message.
void checkCompatible(const DescriptorType& trained_on, int vocabulary_width, const DescriptorType& extracted,
                     const std::string& vocabulary_name = "");

}  // namespace bovw
