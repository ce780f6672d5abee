// Textual names of backends and kernel variants, shared by the command line, reports and JSON.
#include <bovw/error.hpp>
#include <bovw/histogrammer.hpp>

#include <algorithm>
#include <array>
#include <cstdio>
#include <utility>

namespace bovw {

namespace {

constexpr std::array<std::pair<Backend, std::string_view>, 6> kBackendNames{{
    {Backend::Serial, "serial"},
    {Backend::OpenMP, "openmp"},
    {Backend::OpenMPTiled, "openmp-tiled"},
    {Backend::OpenCL, "opencl"},
    {Backend::OpenMPApproximate, "openmp-ann"},
    {Backend::Auto, "auto"}}};

constexpr std::array<std::pair<KernelVariant, std::string_view>, 9> kVariantNames{{
    {KernelVariant::Baseline, "baseline"},
    {KernelVariant::Coalesced, "coalesced"},
    {KernelVariant::Float4, "float4"},
    {KernelVariant::LocalDescriptors, "local"},
    {KernelVariant::ConstantCentroids, "constant"},
    {KernelVariant::Tiled, "tiled"},
    {KernelVariant::TiledTF32, "tiled-tf32"},
    {KernelVariant::TiledFP16, "tiled-fp16"},
    {KernelVariant::Auto, "auto"}}};

template <typename Enum, std::size_t Size>
std::string_view nameOf(const std::array<std::pair<Enum, std::string_view>, Size>& table, Enum value) {
  for (const auto& [v, name] : table)
    if (v == value) return name;
  return "unknown";
}

template <typename Enum, std::size_t Size>
Enum parse(const std::array<std::pair<Enum, std::string_view>, Size>& table, std::string_view name,
           const char* what) {
  std::string valid;
  for (const auto& [v, n] : table) {
    if (n == name) return v;
    valid += (valid.empty() ? "" : ", ") + std::string(n);
  }
  throw InvalidInput("unknown " + std::string(what) + " '" + std::string(name) + "'; valid: " + valid);
}

}  // namespace

std::string_view toString(Backend backend) { return nameOf(kBackendNames, backend); }
std::string_view toString(KernelVariant variant) { return nameOf(kVariantNames, variant); }
Backend parseBackend(std::string_view name) { return parse(kBackendNames, name, "backend"); }
KernelVariant parseKernelVariant(std::string_view name) {
  return parse(kVariantNames, name, "kernel variant");
}

std::string toString(const TileSizes& t) {
  return std::to_string(t.rows_per_item) + "," + std::to_string(t.words_per_item) + "," +
         std::to_string(t.group_rows) + "," + std::to_string(t.group_words) + "," + std::to_string(t.depth);
}

TileSizes parseTileSizes(std::string_view text) {
  const std::string s(text);
  int v[5];
  char tail = 0;
  if (std::sscanf(s.c_str(), "%d,%d,%d,%d,%d%c", &v[0], &v[1], &v[2], &v[3], &v[4], &tail) != 5 ||
      *std::min_element(v, v + 5) < 1)
    throw InvalidInput("tile sizes '" + s +
                       "': expected five positive integers TM,TN,ROWS,WORDS,DEPTH (for example 8,8,16,16,16)");
  return {v[0], v[1], v[2], v[3], v[4]};
}

const std::vector<KernelVariant>& allKernelVariants() {
  static const std::vector<KernelVariant> all = [] {
    std::vector<KernelVariant> v;
    for (const auto& entry : kVariantNames)
      if (entry.first != KernelVariant::Auto) v.push_back(entry.first);
    return v;
  }();
  return all;
}

const std::vector<Backend>& allBackends() {
  static const std::vector<Backend> all = [] {
    std::vector<Backend> b;
    for (const auto& entry : kBackendNames)
      if (entry.first != Backend::Auto) b.push_back(entry.first);
    return b;
  }();
  return all;
}

}  // namespace bovw
