// bovw.Vocabulary (load, save, the words as numpy) and bovw.train (k-means from images or a
// descriptor array). A Vocabulary is immutable: share it between threads freely.
#include "arguments.hpp"
#include "bindings.hpp"
#include "numpy_buffers.hpp"

#include <bovw/communicator.hpp>
#include <bovw/error.hpp>
#include <bovw/image_pipeline.hpp>
#include <bovw/kmeans.hpp>
#include <bovw/vocabulary_io.hpp>

#include <pybind11/stl.h>

#include <cstdio>

namespace bovw::python {

namespace {

Vocabulary trainOnImages(const py::handle& source, const FeatureArguments& features, KMeansOptions options,
                         std::int64_t max_descriptors, int workers) {
  PipelineOptions pipeline;
  pipeline.workers = workers;
  pipeline.max_pixels = features.extractor.max_pixels;
  std::string name;
  std::vector<std::string> paths;
  const bool folder = !py::isinstance<py::list>(source) && !py::isinstance<py::tuple>(source);
  if (folder) name = pathFrom(source);
  else
    for (const auto& path : source) paths.push_back(pathFrom(path));
  py::gil_scoped_release unlocked;
  const auto extractor = cachedExtractor(features);
  DescriptorSample sample;
  if (folder) {
    FolderSample drawn = sampleFolder(singleProcess(), name, *extractor, max_descriptors, options.seed, pipeline);
    if (drawn.failed == drawn.images)
      throw InvalidInput("no readable image in '" + name + "' (" + std::to_string(drawn.images) + " tried)");
    sample = std::move(drawn.sample);
  } else {
    if (paths.empty()) throw InvalidInput("train: the list of images is empty");
    sample = sampleDescriptors(paths, *extractor, max_descriptors, options.seed, pipeline);
    if (sample.failures.size() == paths.size())
      throw InvalidInput("no readable image among the " + std::to_string(paths.size()) + " given");
    name = "the images";
  }
  if (sample.descriptors.rows() < options.words)
    throw InvalidInput("words=" + std::to_string(options.words) + " is larger than the " +
                       std::to_string(sample.descriptors.rows()) + " descriptors of '" + name +
                       "'; use fewer words or more descriptors");
  options.descriptor_type = extractor->descriptorType();
  return namingFile(name, [&] { return trainVocabulary(sample.descriptors, options); });
}

}  // namespace

void bindVocabulary(py::module_& module) {
  py::class_<Vocabulary>(module, "Vocabulary",
                         "K visual words of width D (k-means centroids), immutable: safe to share between threads.")
      .def(py::init([](const py::handle& words, const std::string& descriptor_type, bool copy) {
             const DescriptorsView view = descriptorsView(words, "words", copy);
             const DescriptorType type = DescriptorType::parse(descriptor_type);
             py::gil_scoped_release unlocked;
             return Vocabulary(Descriptors(view.view()), type);  // the vocabulary owns its words: one copy
           }),
           py::arg("words"), py::arg("descriptor_type") = "unspecified", py::kw_only(), py::arg("copy") = false,
           "A vocabulary of the K x D float32 `words` (copied into it), recording what they were trained on "
           "(\"surf64\", \"sift128\", \"orb256-binary\", ...; \"unspecified\": not recorded). Raises TypeError for "
           "another dtype or layout unless copy=True, InvalidInput for NaN/Inf, K or D of 0, or a type whose width "
           "is not D.")
      .def_static(
          "load",
          [](const py::handle& path) {
            const std::string file = pathFrom(path);
            py::gil_scoped_release unlocked;
            return loadVocabulary(file);
          },
          py::arg("path"),
          "Reads a vocabulary in any format bovw writes, chosen by the extension (.bovw, .npy, .yml[.gz], "
          ".xml[.gz], .yaml[.gz], .json). Raises IoError if it cannot be read, InvalidInput naming the file if it "
          "is malformed.")
      .def(
          "save",
          [](const Vocabulary& vocabulary, const py::handle& path) {
            const std::string file = pathFrom(path);
            py::gil_scoped_release unlocked;
            saveVocabulary(file, vocabulary);
          },
          py::arg("path"), "Writes the vocabulary atomically in the format of the extension (as load reads).")
      .def_property_readonly(
          "words",
          [](const py::object& self) {
            const Vocabulary& vocabulary = self.cast<const Vocabulary&>();
            const Descriptors& words = vocabulary.centroids();
            const auto cols = static_cast<py::ssize_t>(words.cols());
            // A read-only view of the words, keeping the vocabulary alive: no copy.
            py::array_t<float> array({static_cast<py::ssize_t>(words.rows()), cols},
                                     {static_cast<py::ssize_t>(sizeof(float)) * cols, static_cast<py::ssize_t>(sizeof(float))},
                                     words.data(), self);
            array.attr("setflags")(py::arg("write") = false);
            return array;
          },
          "The K x D float32 words: a read-only view into the vocabulary (no copy).")
      .def_property_readonly(
          "descriptor_type", [](const Vocabulary& v) { return v.descriptorType().toString(); },
          "What the words were trained on: \"surf64\", \"surf128\", \"sift128\", \"orb256-binary\", ..., or "
          "\"unspecified\".")
      .def_property_readonly("size", &Vocabulary::size, "K, the number of words")
      .def_property_readonly("dimension", &Vocabulary::dimension, "D, the width of a word")
      .def_property_readonly("fingerprint", &Vocabulary::fingerprint,
                             "A 64-bit hash of K, D, the descriptor type and every word: equal vocabularies, equal "
                             "fingerprints")
      .def("__len__", &Vocabulary::size, "K")
      .def("__repr__", [](const Vocabulary& v) {
        return "<bovw.Vocabulary of " + std::to_string(v.size()) + " words, D = " + std::to_string(v.dimension()) +
               ", " + v.descriptorType().toString() + ">";
      });

  module.def(
      "train",
      [](const py::handle& source, int words, std::int64_t max_descriptors, int iterations, double tolerance,
         unsigned long long seed, int tree_branching, const std::optional<std::string>& descriptor_type,
         const std::string& backend, const std::string& variant, const std::optional<std::string>& device,
         int threads, int workers, bool copy, const std::string& features, py::kwargs options) {
        KMeansOptions kmeans;
        kmeans.words = words;
        kmeans.max_iterations = iterations;
        kmeans.tolerance = tolerance;
        kmeans.seed = seed;
        kmeans.branching = tree_branching;
        if (words < 1) throw InvalidInput("words must be positive, got " + std::to_string(words));
        if (iterations < 1) throw InvalidInput("iterations must be positive, got " + std::to_string(iterations));
        if (max_descriptors < 1)
          throw InvalidInput("max_descriptors must be positive, got " + std::to_string(max_descriptors));
        if (tree_branching < 0)
          throw InvalidInput("tree_branching must be 0 (flat) or at least 2, got " + std::to_string(tree_branching));
        kmeans.assignment = histogrammerConfig(backend, variant, device, threads);
        if (py::isinstance<py::array>(source) || copy) {
          py::dict rest = options;
          rejectUnknown(rest, "train (with a descriptor array)");
          const DescriptorsView sample = descriptorsView(source, "descriptors", copy);
          kmeans.descriptor_type = DescriptorType::parse(descriptor_type.value_or("unspecified"));
          py::gil_scoped_release unlocked;
          if (sample.rows < words)
            throw InvalidInput("words=" + std::to_string(words) + " is larger than the " + std::to_string(sample.rows) +
                               " descriptors given; use fewer words or more descriptors");
          return trainVocabulary(sample.view(), kmeans);
        }
        if (descriptor_type)
          throw InvalidInput("descriptor_type is for a descriptor array: from images the extractor's type is recorded");
        py::dict rest = options;
        const FeatureArguments arguments = featureArguments(features, rest);
        rejectUnknown(rest, "train");
        return trainOnImages(source, arguments, kmeans, max_descriptors, workers);
      },
      py::arg("source"), py::arg("words"), py::kw_only(), py::arg("max_descriptors") = 200000,
      py::arg("iterations") = 30, py::arg("tolerance") = 1e-4, py::arg("seed") = 0, py::arg("tree_branching") = 0,
      py::arg("descriptor_type") = py::none(), py::arg("backend") = "auto", py::arg("variant") = "auto",
      py::arg("device") = py::none(), py::arg("threads") = 0, py::arg("workers") = 0, py::arg("copy") = false,
      py::arg("features") = "surf",
      "Trains a vocabulary of `words` words by k-means (k-means++ seeding, Lloyd iterations; a vocabulary tree "
      "with tree_branching >= 2), as `bovw train` does: the same seed and inputs give the same vocabulary.\n\n"
      "`source` is an N x D float32 descriptor array (all rows are used; descriptor_type records what they are), "
      "a folder of images, or a list of image paths (a uniform sample of at most max_descriptors of their "
      "features, extracted as `features` and the feature keyword arguments of extract() say). backend, variant, "
      "device and threads choose where the assignments run (as Histogrammer). The GIL is released while it "
      "runs.");
}

}  // namespace bovw::python
