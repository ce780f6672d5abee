// What features to extract, as data: a kind ("surf", "sift", "orb", or any registered one) and its
// parameters by name. An image database stores one, so that queries are extracted exactly as the
// indexed images were; makeFeatureExtractor (bovw/feature_registry.hpp) turns one into an extractor.
#pragma once

#include <map>
#include <string>

namespace bovw {

class FeatureSpec {
 public:
  // SURF with its defaults (the registry fills in every parameter not given).
  FeatureSpec() : FeatureSpec("surf") {}
  // Throws InvalidInput for a malformed kind, name or value (see toString for the alphabet).
  explicit FeatureSpec(std::string kind, std::map<std::string, std::string> parameters = {});

  const std::string& kind() const { return kind_; }
  const std::map<std::string, std::string>& parameters() const { return parameters_; }

  // Sets one parameter (replacing it); the value is kept as text.
  FeatureSpec& set(const std::string& name, const std::string& value);
  // Typed values in their canonical text: decimal integers, the shortest text that reads back to
  // the same double, true / false.
  FeatureSpec& setInteger(const std::string& name, long long value);
  FeatureSpec& setReal(const std::string& name, double value);  // throws InvalidInput unless finite
  FeatureSpec& setFlag(const std::string& name, bool value);
  bool has(const std::string& name) const { return parameters_.count(name) != 0; }

  // A parameter's value; throws InvalidInput naming the parameter if it is absent or, for the
  // typed readers, not entirely an integer / a finite number / true or false.
  const std::string& value(const std::string& name) const;
  long long integer(const std::string& name) const;
  double real(const std::string& name) const;
  bool flag(const std::string& name) const;

  // The canonical text form: the kind, then "name=value" for each parameter in name order, separated
  // by single spaces: "orb edge_threshold=31 nfeatures=500". Kinds and names are lower-case letters,
  // digits and '_'; values are letters, digits and ".+-_". parse(toString()) == *this; parse accepts
  // any runs of spaces and throws InvalidInput for anything else (a name given twice included).
  std::string toString() const;
  static FeatureSpec parse(const std::string& text);

  friend bool operator==(const FeatureSpec& a, const FeatureSpec& b) {
    return a.kind_ == b.kind_ && a.parameters_ == b.parameters_;
  }
  friend bool operator!=(const FeatureSpec& a, const FeatureSpec& b) { return !(a == b); }

 private:
  std::string kind_;
  std::map<std::string, std::string> parameters_;
};

// The shortest decimal text that reads back to exactly `value` (finite): 100, 1.2, 0.1, 1e-07.
std::string canonicalReal(double value);

}  // namespace bovw
