// `bovw extract`: keypoints and descriptors of images (SURF by default, or any kind of the feature
// registry), written per image in the schema of OpenCV's SURF reference outputs (FileStorage .yml.gz)
// or as float32 descriptor .npy files.
#include "commands.hpp"
#include "feature_options.hpp"
#include "number_checks.hpp"
#include "thread_count.hpp"

#include <bovw/error.hpp>
#include <bovw/feature_registry.hpp>
#include <bovw/file_storage.hpp>
#include <bovw/image_io.hpp>
#include <bovw/image_pipeline.hpp>
#include <bovw/npy.hpp>
#include <bovw/surf.hpp>

#include <opencv2/core.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>

namespace bovw::cli {

namespace {

namespace fs = std::filesystem;

struct ExtractArguments {
  std::vector<std::string> inputs;
  std::string output;
  FeatureOptions features;
  std::string format = "auto";
  int threads = 0;  // 0: all cores
} args;

// One image to extract and where its result goes.
struct Job {
  std::string image;
  std::string output;
};

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

bool endsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Keypoints in the reference schema: N x 6 float32 rows of x, y, size, angle, response, octave.
cv::Mat keypointMatrix(const std::vector<cv::KeyPoint>& keypoints) {
  cv::Mat m(static_cast<int>(keypoints.size()), 6, CV_32F);
  for (int i = 0; i < m.rows; ++i) {
    const cv::KeyPoint& k = keypoints[i];
    float* row = m.ptr<float>(i);
    row[0] = k.pt.x, row[1] = k.pt.y, row[2] = k.size, row[3] = k.angle, row[4] = k.response;
    row[5] = static_cast<float>(k.octave);
  }
  return m;
}

void writeFileStorage(const std::string& path, const std::string& image, const std::vector<cv::KeyPoint>& keypoints,
                      const cv::Mat& descriptors) {
  bovw::writeFileStorage(
      path,
      [&](cv::FileStorage& out) {
        out << "image" << image;
        const SurfParams& surf = args.features.surf;
        if (args.features.features == "surf") {  // the fields of OpenCV's SURF reference outputs
          out << "hessianThreshold" << surf.hessian_threshold;
          out << "nOctaves" << surf.octaves;
          out << "nOctaveLayers" << surf.octave_layers;
          out << "extended" << static_cast<int>(surf.extended);
          out << "upright" << static_cast<int>(surf.upright);
        } else {
          out << "features" << args.features.spec().toString();  // "orb edge_threshold=31 nfeatures=500 ..."
        }
        out << "keypoints_x_y_size_angle_response_octave" << keypointMatrix(keypoints);
        out << "descriptors" << descriptors;
      },
      cv::FileStorage::BASE64);
}

bool npyOutput(const std::string& path) {
  if (args.format == "npy") return true;
  if (args.format == "yml") return false;
  return endsWith(lower(path), ".npy");
}

// Expands folders (their image files, by extension, in name order) and decides output paths:
// OUT is the file itself for a single image, else a folder of <stem>.yml.gz (or .npy) files.
std::vector<Job> plan(std::vector<std::string>& failures) {
  std::vector<std::string> images;
  bool folder_given = false;
  for (const std::string& input : args.inputs) {
    std::error_code ec;
    if (fs::is_directory(input, ec)) {
      folder_given = true;
      std::vector<std::string> found;
      for (const auto& entry : fs::directory_iterator(input, ec))
        if (entry.is_regular_file(ec) && hasImageExtension(entry.path().string())) found.push_back(entry.path().string());
      if (ec) throw IoError("cannot list folder '" + input + "': " + ec.message());
      if (found.empty()) spdlog::warn("extract: no image files in folder '{}'", input);
      std::sort(found.begin(), found.end());
      images.insert(images.end(), found.begin(), found.end());
    } else {
      images.push_back(input);  // missing or unreadable files fail later, one message each
    }
  }
  if (images.empty()) throw InvalidInput("extract: no images to process in the given inputs");

  std::vector<Job> jobs;
  if (images.size() == 1 && !folder_given && !fs::is_directory(args.output)) {
    jobs.push_back({images[0], args.output});
    return jobs;
  }
  std::error_code ec;
  fs::create_directories(args.output, ec);
  if (!fs::is_directory(args.output))
    throw IoError("--output '" + args.output + "': cannot create the folder" + (ec ? ": " + ec.message() : ""));
  const std::string extension = args.format == "npy" ? ".npy" : ".yml.gz";
  std::map<std::string, std::string> taken;  // output path -> image that claimed it
  for (const std::string& image : images) {
    const std::string out = (fs::path(args.output) / (fs::path(image).stem().string() + extension)).string();
    const auto [it, inserted] = taken.emplace(out, image);
    if (!inserted) {
      failures.push_back("'" + image + "': output '" + out + "' is already taken by '" + it->second +
                         "' (same file name stem)");
      continue;
    }
    jobs.push_back({image, out});
  }
  return jobs;
}

// Writes one image's features to its output.
void write(const FeatureExtractor& extractor, const Job& job, ImageFeatures& features) {
  const std::vector<cv::KeyPoint>& keypoints = features.keypoints;
  cv::Mat& descriptors = features.descriptors;
  if (descriptors.empty()) descriptors.create(0, extractor.descriptorSize(), CV_32F);
  if (npyOutput(job.output)) {
    Descriptors d = toDescriptors(descriptors);
    if (d.rows() == 0) d.resize(0, extractor.descriptorSize());
    npy::writeFloat32Matrix(job.output, d);
  } else {
    writeFileStorage(job.output, job.image, keypoints, descriptors);
  }
  std::cout << job.image << ": " << keypoints.size() << " keypoints -> " << job.output << "\n";
}

// Before any image is read: a single image's output file can be written and is not the image; in a
// folder, a file can be written (the first image's, tried: every output goes to that one folder).
void checkOutputFiles(const std::vector<Job>& jobs) {
  const bool single = jobs.size() == 1 && jobs.front().output == args.output;
  checkOutputs({{"--output", jobs.front().output}}, {{"the image", single ? jobs.front().image : ""}});
}

}  // namespace

CLI::App* addExtractCommand(CLI::App& app) {
  auto* command = app.add_subcommand(
      "extract", "Keypoints and descriptors of images (SURF by default, in OpenCV SURF's algorithm and output schema)");
  command->add_option("images", args.inputs, "image files, or folders whose image files are all extracted")
      ->required();
  command->add_option("-o,--output", args.output,
                      "output file for one image; for several images or a folder, an output folder "
                      "receiving <stem>.yml.gz (or <stem>.npy) per image")
      ->required();
  command->add_option("--format", args.format,
                      "yml: OpenCV FileStorage with keypoints and descriptors; npy: float32 N x D descriptors; "
                      "auto: npy when a single output file ends in .npy, else yml")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "yml", "npy"}));
  args.features.addTo(command, FeatureOptionSet::PerImage);
  command->add_option("--threads", args.threads, "threads (0: all cores): OpenCV's and OpenMP's thread count")
      ->check(threadCount(true))
      ->capture_default_str();
  return command;
}

int runExtractCommand() {
  std::vector<std::string> failures;
  const std::vector<Job> jobs = plan(failures);
  if (!jobs.empty()) checkOutputFiles(jobs);
  args.features.useThreads(args.threads);
  const auto extractor = args.features.extractor();
  spdlog::debug("extract: {}", extractor->description());  // "SURF backend opencl"
  for (const std::string& f : failures) spdlog::error("extract: {}", f);
  if (!failures.empty() && args.features.strict) return 1;
  int failed = static_cast<int>(failures.size());
  // The extraction pipeline decodes on every core while the images' features are written in order;
  // SURF on the OpenCL backend runs the images in device batches (the same features).
  std::vector<std::string> images;
  for (const Job& job : jobs) images.push_back(job.image);
  PipelineOptions options;
  options.workers = args.threads;
  options.max_pixels = args.features.surf.max_pixels;
  options.strict = args.features.strict;
  bool stopped = false;  // --strict: a failure to write was reported; stop at it
  try {
    const std::vector<ImageFailure> bad =
        extractImageFeatures(images, *extractor, options, [&](std::size_t i, ImageFeatures& features) {
          try {
            namingFile(jobs[i].image, [&] { write(*extractor, jobs[i], features); });
          } catch (const Error& e) {  // names its file: InvalidInput through namingFile, IoError always
            spdlog::error("extract: {}", e.what());
            ++failed;
            if (args.features.strict) {
              stopped = true;
              throw;
            }
          } catch (const std::exception& e) {  // an OpenCV failure on one image must not end the others
            spdlog::error("extract: '{}': {}", jobs[i].image, e.what());
            ++failed;
            if (args.features.strict) {
              stopped = true;
              throw;
            }
          }
        });
    for (const ImageFailure& f : bad) spdlog::error("extract: {}", f.message);  // each names its file
    failed += static_cast<int>(bad.size());
  } catch (const std::exception& e) {  // --strict: the first failure
    if (!stopped) spdlog::error("extract: {}", e.what());
    return 1;
  }
  if (failed > 0) spdlog::error("extract: {} of {} images failed", failed, jobs.size() + failures.size());
  return failed > 0 ? 1 : 0;
}

}  // namespace bovw::cli
