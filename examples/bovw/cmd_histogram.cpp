// `bovw histogram`: descriptors (.npy) + vocabulary -> one histogram per image (.npy).
#include "commands.hpp"
#include "histogrammer_options.hpp"
#include "input_errors.hpp"

#include <bovw/atomic_file.hpp>
#include <bovw/histogrammer.hpp>
#include <bovw/npy.hpp>

#include <spdlog/spdlog.h>

#include <iostream>

namespace bovw::cli {

namespace {

struct HistogramArguments {
  std::string descriptors;
  std::string offsets;
  std::string vocabulary;
  std::string output;
  std::string assignments;
  HistogrammerOptions histogrammer;
} args;

}  // namespace

CLI::App* addHistogramCommand(CLI::App& app) {
  auto* command = app.add_subcommand(
      "histogram", "Nearest visual word of every descriptor and one histogram per image");
  command->add_option("--descriptors", args.descriptors, "float32 N x D .npy")->required();
  command->add_option("--offsets", args.offsets,
                      "int64 .npy of I+1 row offsets: image i owns rows [O[i], O[i+1]) (default: one image)");
  command->add_option("--vocabulary", args.vocabulary, "float32 K x D .npy of visual words")->required();
  command->add_option("--output", args.output, "int32 I x K .npy of histograms")->required();
  command->add_option("--assignments", args.assignments, "also write the int32 N .npy of nearest words");
  args.histogrammer.addTo(command);
  return command;
}

int runHistogramCommand() {
  const Descriptors descriptors = npy::readFloat32Matrix(args.descriptors);
  const Vocabulary vocabulary = namingInput(args.vocabulary, [&] {
    return Vocabulary(npy::readFloat32Matrix(args.vocabulary), "float");
  });
  std::vector<std::int64_t> offsets = {0, descriptors.rows()};
  if (!args.offsets.empty()) offsets = npy::readInt64Vector(args.offsets);
  const std::string& offsets_source = args.offsets.empty() ? args.descriptors : args.offsets;
  const DescriptorBatch batch =
      namingInput(offsets_source, [&] { return DescriptorBatch(descriptors, offsets); });

  auto histogrammer = makeHistogrammer(args.histogrammer.config());
  std::vector<std::int32_t> assignments;
  StageTimes times;
  const Histograms histograms = namingInput(args.descriptors + "' with '" + args.vocabulary, [&] {
    return histogrammer->compute(batch, vocabulary, &assignments, &times);
  });

  // Both outputs or neither: a failed assignments file must not leave a fresh histogram file behind.
  std::vector<StreamWrite> outputs = {
      {args.output, [&](std::ostream& out) { npy::writeInt32Matrix(out, histograms); }}};
  if (!args.assignments.empty())
    outputs.push_back({args.assignments, [&](std::ostream& out) { npy::writeInt32Vector(out, assignments); }});
  writeFilesAtomically(outputs);
  std::cout << "bovw histogram: " << batch.imageCount() << " image(s), " << descriptors.rows()
            << " descriptors, K = " << vocabulary.size() << ", D = " << vocabulary.dimension() << " on "
            << histogrammer->description() << "\n"
            << "  kernel " << times.kernel_ms << " ms, transpose " << times.transpose_ms << " ms, upload "
            << times.upload_ms << " ms, download " << times.download_ms << " ms\n"
            << "  wrote " << args.output << (args.assignments.empty() ? "" : " and " + args.assignments)
            << "\n";
  return 0;
}

}  // namespace bovw::cli
