// The feature registry: built-in kinds, registration, spec normalisation and extractor creation.
#include <bovw/error.hpp>
#include <bovw/feature_registry.hpp>

#include "builtin_feature_kinds.hpp"

#include <algorithm>
#include <map>
#include <mutex>

namespace bovw {

namespace {

struct Registry {
  std::mutex mutex;
  std::map<std::string, FeatureKind> kinds;
};

Registry& registry() {
  static Registry* instance = [] {
    auto* r = new Registry;  // never destroyed: extractors may be made from other static destructors
    for (FeatureKind kind : {detail::surfFeatureKind(), detail::siftFeatureKind(), detail::orbFeatureKind()})
      r->kinds.emplace(kind.name, std::move(kind));
    return r;
  }();
  return *instance;
}

std::string joined(const std::vector<std::string>& names) {
  std::string text;
  for (const auto& name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}

// Sets parameter `p` of `out` from its text value in `in`, in canonical form and checked against its range.
void setCanonical(FeatureSpec& out, const FeatureSpec& in, const FeatureParameter& p) {
  auto checkRange = [&](double value) {
    if (value < p.min || value > p.max)
      throw InvalidInput(in.kind() + " features: " + p.name + "=" + in.value(p.name) + " is out of range [" +
                         canonicalReal(p.min) + ", " + canonicalReal(p.max) + "]");
  };
  switch (p.type) {
    case FeatureParameter::Type::Flag:
      out.setFlag(p.name, in.flag(p.name));
      return;
    case FeatureParameter::Type::Integer:
      checkRange(static_cast<double>(in.integer(p.name)));
      out.setInteger(p.name, in.integer(p.name));
      return;
    case FeatureParameter::Type::Real:
      checkRange(in.real(p.name));
      out.setReal(p.name, in.real(p.name));
      return;
  }
}

}  // namespace

void registerFeatureKind(FeatureKind kind) {
  if (!kind.make) throw InvalidInput("feature kind '" + kind.name + "' has no factory");
  static_cast<void>(FeatureSpec(kind.name));  // checks the name's alphabet
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.kinds[kind.name] = std::move(kind);
}

std::vector<std::string> featureKindNames() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<std::string> names;
  for (const auto& entry : r.kinds) names.push_back(entry.first);
  return names;
}

FeatureKind featureKind(const std::string& name) {
  Registry& r = registry();
  {
    std::lock_guard<std::mutex> lock(r.mutex);
    const auto it = r.kinds.find(name);
    if (it != r.kinds.end()) return it->second;
  }
  throw InvalidInput("unknown feature kind '" + name + "'; valid: " + joined(featureKindNames()));
}

FeatureSpec normalizeFeatureSpec(const FeatureSpec& spec) {
  const FeatureKind kind = featureKind(spec.kind());
  std::vector<std::string> valid;
  for (const auto& p : kind.parameters) valid.push_back(p.name);
  for (const auto& entry : spec.parameters())
    if (std::find(valid.begin(), valid.end(), entry.first) == valid.end())
      throw InvalidInput(spec.kind() + " features have no parameter '" + entry.first + "'; valid: " + joined(valid));
  FeatureSpec normalized(spec.kind());
  for (const auto& p : kind.parameters) {
    FeatureSpec given(spec.kind());
    given.set(p.name, spec.has(p.name) ? spec.value(p.name) : p.default_value);
    setCanonical(normalized, given, p);
  }
  return normalized;
}

std::unique_ptr<FeatureExtractor> makeFeatureExtractor(const FeatureSpec& spec, const ExtractorOptions& options) {
  return featureKind(spec.kind()).make(normalizeFeatureSpec(spec), options);
}

}  // namespace bovw
