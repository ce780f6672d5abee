// `bovw histogram`: descriptors (.npy) or a folder of images + a vocabulary -> one histogram per
// image (.npy), with the image names beside it for folders.
#include "commands.hpp"
#include "histogrammer_options.hpp"
#ifdef BOVW_CLI_WITH_FEATURES
#include "feature_options.hpp"
#include "run_timeline.hpp"
#endif

#include <bovw/atomic_file.hpp>
#include <bovw/error.hpp>
#include <bovw/histogrammer.hpp>
#include <bovw/npy.hpp>
#include <bovw/pinned_descriptors.hpp>
#include <bovw/vocabulary_io.hpp>

#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <future>
#include <iostream>
#include <optional>

namespace bovw::cli {

namespace {

struct HistogramArguments {
  std::string descriptors;
  std::string offsets;
  std::string vocabulary;
  std::string output;
  std::string assignments;
  std::string images;
  HistogrammerOptions histogrammer;
#ifdef BOVW_CLI_WITH_FEATURES
  FeatureOptions features;
#endif
} args;

// H.npy -> H.names.txt: the image of each histogram row, one per line.
std::string namesPathFor(const std::string& output) {
  std::filesystem::path path(output);
  return (path.parent_path() / (path.stem().string() + ".names.txt")).string();
}

double millisecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// The descriptors file in memory: with the OpenCL backend, in pinned memory of the histogrammer's
// device, which its uploads read over the bus with no host copy (docs/PERFORMANCE.md, "Transfers");
// otherwise, or when the device cannot pin that much, in ordinary memory.
struct LoadedDescriptors {
  std::optional<PinnedDescriptors> pinned;
  Descriptors ordinary;
  double allocate_ms = 0;  // allocating (page-locking) the pinned memory
  double read_ms = 0;      // reading the file into memory

  DescriptorsRef view() const { return pinned ? DescriptorsRef(pinned->matrix()) : DescriptorsRef(ordinary); }
  std::int64_t rows() const { return view().rows(); }
};

LoadedDescriptors loadDescriptors(const std::string& path, const HistogrammerConfig& config) {
  LoadedDescriptors loaded;
  if (config.backend == Backend::OpenCL) {
    const npy::MatrixShape shape = npy::readFloat32MatrixShape(path);
    const auto start = std::chrono::steady_clock::now();
    try {
      loaded.pinned.emplace(shape.rows, shape.cols, config.device);
    } catch (const Error& e) {  // beyond the device's largest allocation, or refused by the driver
      spdlog::warn("histogram: '{}' goes to the device through staging: {}", path, e.what());
    }
    loaded.allocate_ms = millisecondsSince(start);
  }
  const auto start = std::chrono::steady_clock::now();
  if (loaded.pinned)
    npy::readFloat32MatrixInto(path, loaded.pinned->matrix());
  else
    loaded.ordinary = npy::readFloat32Matrix(path);
  loaded.read_ms = millisecondsSince(start);
  return loaded;
}

#ifdef BOVW_CLI_WITH_FEATURES
// The folder's histograms go into the output as the pipeline finishes them (no copy of them all in
// memory, and the file is on disk moments after the last image); the outputs replace their targets
// only once complete.
int runOnImages(const Vocabulary& vocabulary, RunTimeline& timeline) {
  args.features.useThreads(args.histogrammer.threads);
  const HistogrammerConfig config = args.histogrammer.config();
  // A device's platform and kernels (a quarter of a second on NVIDIA) are made while the folder is listed.
  auto made = std::async(std::launch::async, [&] {
    return makeFeatureExtractor(args.features.spec(), extractorBeside(args.features.extractorOptions(), config));
  });
  const std::vector<std::string> images = listFolderImages(args.images);
  timeline.mark("listing the images");
  auto extractor = made.get();
  checkCompatible(vocabulary, extractor->descriptorType(), args.vocabulary);
  timeline.mark("making the extractor (SURF on a device: its platform and kernels) beyond the listing");
  auto histogrammer = makeHistogrammer(config);
  timeline.mark("making the histogrammer");

  const std::string names_path = namesPathFor(args.output);
  StreamedFiles outputs({args.output, names_path});
  npy::Int32MatrixWriter histograms(outputs.stream(0), static_cast<std::int64_t>(images.size()), vocabulary.size());
  std::ostream& names = outputs.stream(1);
  // The extractor checked above runs the pipeline too: another would ignore extractorBeside (SURF on a
  // GPU beside a CPU histogram backend named on the command line) and load its device again.
  args.features.histogramFolder(args.images, images, *extractor, vocabulary, *histogrammer, "histogram",
                                [&](ImageHistograms&& batch) {
                                  histograms.append(batch.histograms);
                                  for (const auto& name : batch.names) names << name << "\n";
                                });
  timeline.mark("the pipeline (the images to their histograms in the outputs)");
  histograms.finish();
  outputs.commit();
  timeline.mark("completing the outputs (the header; sync and rename)");
  const std::string backend = histogrammer->description();
  histogrammer.reset();  // here rather than at the return: --profile shows what releasing them costs
  extractor.reset();
  timeline.mark("releasing the extractor and the histogrammer (their queues and memory)");
  if (args.features.profile) std::fprintf(stderr, "profile: %s\n", timeline.summary().c_str());
  std::cout << "bovw histogram: " << histograms.rows() << " images, K = " << vocabulary.size() << " on "
            << backend << "; wrote " << args.output << " and " << names_path << "\n";
  return 0;
}
#endif

}  // namespace

CLI::App* addHistogramCommand(CLI::App& app) {
  auto* command = app.add_subcommand(
      "histogram", "Nearest visual word of every descriptor and one histogram per image");
  auto* input = command->add_option_group("input", "what to histogram: descriptors or images");
  input->add_option("--descriptors", args.descriptors, "float32 N x D .npy");
#ifdef BOVW_CLI_WITH_FEATURES
  input->add_option("--images", args.images, "a folder of images (features extracted with the options below)");
#endif
  input->require_option(1);
  command->add_option("--offsets", args.offsets,
                      "int64 .npy of I+1 row offsets: image i owns rows [O[i], O[i+1]) (default: one image)");
  command->add_option("--vocabulary", args.vocabulary, "vocabulary file: " + vocabularyFormatNames())->required();
  command->add_option("--output", args.output,
                      "int32 I x K .npy of histograms (with --images also <stem>.names.txt)")->required();
  command->add_option("--assignments", args.assignments, "also write the int32 N .npy of nearest words");
#ifdef BOVW_CLI_WITH_FEATURES
  args.features.addTo(command);
#endif
  args.histogrammer.addTo(command);
  return command;
}

int runHistogramCommand() {
  const std::vector<NamedPath> inputs = {
      {"--descriptors", args.descriptors}, {"--offsets", args.offsets}, {"--vocabulary", args.vocabulary}};
  if (args.images.empty())
    checkOutputs({{"--output", args.output}, {"--assignments", args.assignments}}, inputs);
  else
    checkOutputs({{"--output", args.output}, {"the image names of --output", namesPathFor(args.output)}}, inputs);
#ifdef BOVW_CLI_WITH_FEATURES
  RunTimeline timeline;
#endif
  const Vocabulary vocabulary = loadVocabulary(args.vocabulary);
#ifdef BOVW_CLI_WITH_FEATURES
  timeline.mark("reading the vocabulary");
  if (!args.images.empty()) return runOnImages(vocabulary, timeline);
#endif
  const HistogrammerConfig config = args.histogrammer.config();
  auto histogrammer = makeHistogrammer(config);
  const LoadedDescriptors descriptors = loadDescriptors(args.descriptors, config);
  std::vector<std::int64_t> offsets = {0, descriptors.rows()};
  if (!args.offsets.empty()) offsets = npy::readInt64Vector(args.offsets);
  const std::string& offsets_source = args.offsets.empty() ? args.descriptors : args.offsets;
  const DescriptorBatch batch =
      namingFile(offsets_source, [&] { return DescriptorBatch(descriptors.view(), offsets); });

  std::vector<std::int32_t> assignments;
  StageTimes times;
  const Histograms histograms = namingFiles({args.descriptors, args.vocabulary}, [&] {
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
            << "  read " << args.descriptors << " in " << descriptors.read_ms << " ms into ";
  if (descriptors.pinned)
    std::cout << "pinned memory of " << descriptors.pinned->device().name << " (allocated in "
              << descriptors.allocate_ms << " ms)\n";
  else
    std::cout << "ordinary memory\n";
  std::cout << "  call " << times.wall_ms << " ms (wall), host copy into pinned staging " << times.staging_ms
            << " ms (" << times.staged_rows << " rows); device events: kernel " << times.kernel_ms
            << " ms (re-check " << times.recheck_ms << " ms, " << times.rechecked_rows << " rows settled by direct sums, "
            << times.fully_rechecked_rows << " of them over every word), transpose "
            << times.transpose_ms << " ms, upload " << times.upload_ms << " ms, download " << times.download_ms
            << " ms\n"
            << "  wrote " << args.output << (args.assignments.empty() ? "" : " and " + args.assignments)
            << "\n";
  return 0;
}

}  // namespace bovw::cli
