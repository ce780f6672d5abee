// FeatureSpec: validation of its text, the canonical form and the typed readers.
#include <bovw/error.hpp>
#include <bovw/feature_spec.hpp>

#include <cctype>
#include <charconv>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

namespace bovw {

namespace {

bool isNameCharacter(char c) {
  return std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_';
}

bool isValueCharacter(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '+' || c == '-' || c == '_';
}

void checkName(const std::string& name, const char* what) {
  bool ok = !name.empty() && std::islower(static_cast<unsigned char>(name[0]));
  for (char c : name) ok = ok && isNameCharacter(c);
  if (!ok) throw InvalidInput(std::string("feature ") + what + " '" + name + "': expected lower-case letters, digits and '_'");
}

void checkValue(const std::string& name, const std::string& value) {
  bool ok = !value.empty();
  for (char c : value) ok = ok && isValueCharacter(c);
  if (!ok) throw InvalidInput("feature parameter " + name + "='" + value + "': expected letters, digits and .+-_");
}

}  // namespace

FeatureSpec::FeatureSpec(std::string kind, std::map<std::string, std::string> parameters) : kind_(std::move(kind)) {
  checkName(kind_, "kind");
  for (auto& [name, value] : parameters) set(name, value);
}

FeatureSpec& FeatureSpec::set(const std::string& name, const std::string& value) {
  checkName(name, "parameter");
  checkValue(name, value);
  parameters_[name] = value;
  return *this;
}

FeatureSpec& FeatureSpec::setInteger(const std::string& name, long long value) {
  return set(name, std::to_string(value));
}

FeatureSpec& FeatureSpec::setReal(const std::string& name, double value) {
  if (!std::isfinite(value)) throw InvalidInput(kind_ + " features: " + name + " must be a finite number");
  return set(name, canonicalReal(value));
}

FeatureSpec& FeatureSpec::setFlag(const std::string& name, bool value) { return set(name, value ? "true" : "false"); }

const std::string& FeatureSpec::value(const std::string& name) const {
  const auto it = parameters_.find(name);
  if (it == parameters_.end()) throw InvalidInput(kind_ + " features: no parameter '" + name + "'");
  return it->second;
}

long long FeatureSpec::integer(const std::string& name) const {
  const std::string& text = value(name);
  char* end = nullptr;
  errno = 0;
  const long long result = std::strtoll(text.c_str(), &end, 10);
  if (errno != 0 || end != text.c_str() + text.size())
    throw InvalidInput(kind_ + " features: " + name + "=" + text + " is not an integer");
  return result;
}

double FeatureSpec::real(const std::string& name) const {
  const std::string& text = value(name);
  char* end = nullptr;
  const double result = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || !std::isfinite(result))
    throw InvalidInput(kind_ + " features: " + name + "=" + text + " is not a finite number");
  return result;
}

bool FeatureSpec::flag(const std::string& name) const {
  const std::string& text = value(name);
  if (text == "true" || text == "1") return true;
  if (text == "false" || text == "0") return false;
  throw InvalidInput(kind_ + " features: " + name + "=" + text + " is not true or false");
}

std::string FeatureSpec::toString() const {
  std::string text = kind_;
  for (const auto& [name, value] : parameters_) text += " " + name + "=" + value;
  return text;
}

FeatureSpec FeatureSpec::parse(const std::string& text) {
  std::istringstream words(text);
  std::string kind, word;
  if (!(words >> kind)) throw InvalidInput("empty feature specification");
  FeatureSpec spec(kind);
  while (words >> word) {
    const auto equals = word.find('=');
    if (equals == std::string::npos)
      throw InvalidInput("feature specification '" + text + "': '" + word + "' is not name=value");
    const std::string name = word.substr(0, equals);
    if (spec.has(name)) throw InvalidInput("feature specification '" + text + "': " + name + " given twice");
    spec.set(name, word.substr(equals + 1));
  }
  return spec;
}

std::string canonicalReal(double value) {
  char text[32];
  // Without a precision, to_chars writes the shortest text that reads back exactly (plain or
  // scientific, whichever is shorter).
  const auto result = std::to_chars(text, text + sizeof text, value);
  return std::string(text, result.ptr);
}

}  // namespace bovw
