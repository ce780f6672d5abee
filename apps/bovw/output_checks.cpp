// Every command's outputs checked before its work (output_checks.hpp).
#include "output_checks.hpp"

#include "program.hpp"

#include <bovw/atomic_file.hpp>
#include <bovw/error.hpp>
#include <bovw/rank_agreement.hpp>

#include <filesystem>

namespace bovw::cli {

namespace {

// The same file: the same path, or two names of one file (a link, "./a" and "a").
bool sameFile(const std::string& a, const std::string& b) {
  std::error_code error;
  return a == b || (std::filesystem::equivalent(a, b, error) && !error);
}

std::string said(const NamedPath& named) { return named.name + " '" + named.path + "'"; }

void check(const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& inputs) {
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const NamedPath& output = outputs[i];
    if (output.path.empty()) continue;
    if (const auto problem = writeProblem(output.path)) throw IoError("cannot write " + said(output) + ": " + *problem);
    for (const NamedPath& input : inputs)
      if (!input.path.empty() && sameFile(output.path, input.path))
        throw InvalidInput(said(output) + " is " + said(input) + ": it would be overwritten");
    for (std::size_t j = i + 1; j < outputs.size(); ++j)
      if (!outputs[j].path.empty() && sameFile(output.path, outputs[j].path))
        throw InvalidInput(said(output) + " and " + said(outputs[j]) + " are the same file");
  }
}

}  // namespace

void checkOutputs(const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& inputs, Writers writers) {
  everyRankOrNone(ranks(), [&] {
    if (writers == Writers::EveryRank || printsResults()) check(outputs, inputs);
  });
}

}  // namespace bovw::cli
