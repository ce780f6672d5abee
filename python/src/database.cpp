// bovw.Database: bovw::ImageSearch for Python. Opens what `bovw index` writes (a .bovwdb file, a
// .bovwshards manifest, a live database folder) or makes a new one, adds and removes images, and
// answers queries with SearchResult objects. Share it freely between threads: as ImageSearch
// allows, searches (and len, names) run side by side and beside one add or remove; adds and removes
// take turns; save waits for everything else.
#include "arguments.hpp"
#include "bindings.hpp"
#include "numpy_buffers.hpp"

#include <bovw/error.hpp>
#include <bovw/image_io.hpp>
#include <bovw/image_search.hpp>
#include <bovw/scoring.hpp>

#include <pybind11/stl.h>

#include <mutex>
#include <shared_mutex>

namespace bovw::python {

namespace {

class PyDatabase {
 public:
  explicit PyDatabase(ImageSearch search, std::int64_t max_pixels) : search_(std::move(search)), max_pixels_(max_pixels) {}

  // `function(search)` with the GIL released: reading (searches) beside any other reading and one
  // writing; writing (add, remove) one at a time; alone (save) with nothing else.
  template <typename Function>
  decltype(auto) reading(Function&& function) {
    py::gil_scoped_release unlocked;
    std::shared_lock<std::shared_mutex> lock(access_);
    return function(search_);
  }
  template <typename Function>
  decltype(auto) writing(Function&& function) {
    py::gil_scoped_release unlocked;
    std::lock_guard<std::mutex> turn(writer_);
    std::shared_lock<std::shared_mutex> lock(access_);
    return function(search_);
  }
  template <typename Function>
  decltype(auto) alone(Function&& function) {
    py::gil_scoped_release unlocked;
    std::unique_lock<std::shared_mutex> lock(access_);
    return function(search_);
  }

  std::int64_t maxPixels() const { return max_pixels_; }
  const ImageSearch& search() const { return search_; }

 private:
  ImageSearch search_;
  std::int64_t max_pixels_;
  std::shared_mutex access_;
  std::mutex writer_;
};

ImageSearchOptions searchOptions(const std::string& backend, const std::string& variant,
                                 const std::optional<std::string>& device, int threads, int workers,
                                 const ExtractorOptions& extractor) {
  ImageSearchOptions options;
  options.histogrammer = histogrammerConfig(backend, variant, device, threads);
  options.extractor = extractor;
  if (workers < 0) throw InvalidInput("workers must be 0 (all cores) or positive, got " + std::to_string(workers));
  options.pipeline.workers = workers;
  options.pipeline.max_pixels = extractor.max_pixels;
  return options;
}

// Takes the run options (surf_backend, surf_device, max_pixels) out of `options`; open() accepts
// only these: what a database extracts is fixed by the database.
ExtractorOptions runOptions(py::dict& options, const char* call) {
  py::dict run;
  for (const char* name : {"surf_backend", "surf_device", "max_pixels"})
    if (options.contains(name)) {
      run[name] = options[name];
      PyDict_DelItemString(options.ptr(), name);
    }
  rejectUnknown(options, call);
  return featureArguments("surf", run).extractor;
}

SearchOptions queryOptions(std::size_t top, std::size_t verify, std::size_t expand, const std::string& scoring,
                           bool exclude_query) {
  SearchOptions options;
  options.top = top;
  options.verify = verify;
  options.expand = expand;
  if (scoring != "auto") options.scoring = parseScoringOptions(scoring);  // auto: the database's default
  options.exclude_query = exclude_query;
  return options;
}

std::vector<std::string> namesFrom(const py::handle& names) {
  std::vector<std::string> result;
  for (const auto& name : names) result.push_back(pathFrom(name));
  return result;
}

bool isSequence(const py::handle& object) {
  return py::isinstance<py::list>(object) || py::isinstance<py::tuple>(object);
}

const char* const kOpenArguments =
    "backend, variant, device and threads choose where histograms are computed (as Histogrammer); workers: "
    "images decoded at once (0: all cores); surf_backend, surf_device, max_pixels: how images are extracted "
    "(as extract()).";

}  // namespace

void bindDatabase(py::module_& module) {
  py::class_<SearchHit>(module, "SearchResult", "One result of Database.search: an indexed image and how well it matches.")
      .def_property_readonly("name", [](const SearchHit& h) { return text(h.name); }, "the image's name (its path when added by path)")
      .def_readonly("score", &SearchHit::score,
                    "the ranking score: inliers + bow_score for a verified result, else bow_score")
      .def_readonly("bow_score", &SearchHit::bow_score, "the bag-of-words similarity, in [0, 1]")
      .def_readonly("inliers", &SearchHit::inliers, "keypoints the homography maps onto their partners; -1: not checked")
      .def_readonly("verified", &SearchHit::verified, "True when geometric verification confirmed the match")
      .def_readonly("shard", &SearchHit::shard, "the shard that holds the image (0 for one file)")
      .def_readonly("id", &SearchHit::id, "the image's id in its shard")
      .def_property_readonly(
          "homography",
          [](const SearchHit& h) -> py::object {
            if (!h.homography) return py::none();
            py::array_t<double> matrix({3, 3});
            for (int r = 0; r < 3; ++r)
              for (int c = 0; c < 3; ++c) matrix.mutable_at(r, c) = (*h.homography)(r, c);
            return std::move(matrix);
          },
          "when verified: the 3 x 3 float64 homography from query image coordinates to this image's; else None")
      .def("__repr__", [](const SearchHit& h) {
        return "<bovw.SearchResult " + py::repr(text(h.name)).cast<std::string>() + " score " + std::to_string(h.score) +
               (h.verified ? ", verified, " + std::to_string(h.inliers) + " inliers" : "") + ">";
      });

  py::class_<PyDatabase>(
      module, "Database",
      "An image database: a .bovwdb file, the shards of a .bovwshards manifest, or a live database folder. "
      "Safe to share between threads: one object's calls run one at a time. Do not open one live database twice "
      "in one process (LMDB's locks are per process).")
      .def_static(
          "open",
          [](const py::handle& path, const std::string& backend, const std::string& variant,
             const std::optional<std::string>& device, int threads, int workers, py::kwargs kwargs) {
            py::dict rest = kwargs;
            const ExtractorOptions extractor = runOptions(rest, "Database.open");
            ImageSearchOptions options = searchOptions(backend, variant, device, threads, workers, extractor);
            const std::string file = pathFrom(path);
            py::gil_scoped_release unlocked;
            return std::make_unique<PyDatabase>(ImageSearch::open(file, std::move(options)), extractor.max_pixels);
          },
          py::arg("path"), py::kw_only(), py::arg("backend") = "auto", py::arg("variant") = "auto",
          py::arg("device") = py::none(), py::arg("threads") = 0, py::arg("workers") = 0,
          (std::string("Opens what `bovw index` or save() wrote: a .bovwdb file, a .bovwshards manifest (read-only) "
                       "or a live database folder (changes are durable when add/remove return). ") +
           kOpenArguments + " Raises IoError or InvalidInput naming the file.")
              .c_str())
      .def_static(
          "create",
          [](const Vocabulary& vocabulary, const std::string& features, const std::optional<py::object>& path,
             bool store_keypoints, const std::string& backend, const std::string& variant,
             const std::optional<std::string>& device, int threads, int workers, py::kwargs kwargs) {
            py::dict rest = kwargs;
            const FeatureArguments arguments = featureArguments(features, rest);
            rejectUnknown(rest, "Database.create");
            ImageSearchOptions options = searchOptions(backend, variant, device, threads, workers, arguments.extractor);
            DatabaseOptions database;
            database.store_keypoints = store_keypoints;
            const std::string folder = path ? pathFrom(*path) : std::string();
            py::gil_scoped_release unlocked;
            ImageSearch search =
                path ? ImageSearch::createLive(folder, vocabulary, arguments.spec, database, std::move(options))
                     : ImageSearch::create(vocabulary, arguments.spec, database, std::move(options));
            return std::make_unique<PyDatabase>(std::move(search), arguments.extractor.max_pixels);
          },
          py::arg("vocabulary"), py::arg("features") = "surf", py::kw_only(), py::arg("path") = py::none(),
          py::arg("store_keypoints") = false, py::arg("backend") = "auto", py::arg("variant") = "auto",
          py::arg("device") = py::none(), py::arg("threads") = 0, py::arg("workers") = 0,
          (std::string("A new, empty database of `vocabulary` for images whose features `features` and the feature "
                       "keyword arguments of extract() describe (they must fit the vocabulary). Without path, it "
                       "lives in memory (save() writes it); with path, it is a new live database in that folder "
                       "(every add and remove durable when it returns). store_keypoints: keep keypoints so that "
                       "search(verify=...) can verify geometrically. ") +
           kOpenArguments)
              .c_str())
      .def(
          "add",
          [](PyDatabase& self, const py::handle& images, const std::optional<py::object>& name) -> py::object {
            if (py::isinstance<py::array>(images)) {
              if (!name) throw py::type_error("add: an image array needs name=");
              const std::string label = pathFrom(*name);
              const auto array = py::reinterpret_borrow<py::array>(images);
              const cv::Mat pixels = imageView(array);
              return py::int_(self.writing([&](ImageSearch& s) { return s.add(label, pixels); }));
            }
            if (name) throw py::type_error("add: name= is for an image array (images added by path are named by it)");
            if (isSequence(images)) {
              const std::vector<std::string> paths = namesFrom(images);
              const std::vector<ImageFailure> failures = self.writing([&](ImageSearch& s) { return s.add(paths); });
              py::list result;
              for (const ImageFailure& f : failures) result.append(py::make_tuple(text(f.path), text(f.message)));
              return std::move(result);
            }
            const std::string path = pathFrom(images);
            const std::int64_t max_pixels = self.maxPixels();
            return py::int_(self.writing([&](ImageSearch& s) {
              return namingFile(path, [&] { return s.add(path, loadImage(path, max_pixels)); });
            }));
          },
          py::arg("images"), py::kw_only(), py::arg("name") = py::none(),
          "Adds images: one path (returns its id; raises IoError/InvalidInput if it cannot be read or its name is "
          "taken), a list of paths (extracted in parallel; returns the (path, message) pairs of those skipped: "
          "unreadable or already indexed), or a uint8/uint16 image array with name= (returns its id). Images added "
          "by path are named by the path as given. The GIL is released.")
      .def(
          "remove",
          [](PyDatabase& self, const py::handle& names) {
            const std::vector<std::string> list = isSequence(names) ? namesFrom(names) : std::vector<std::string>{pathFrom(names)};
            self.writing([&](ImageSearch& s) { s.remove(list); });
          },
          py::arg("names"),
          "Removes the image of this name, or all of a list of names (all or none). Raises InvalidInput naming the "
          "first name no image has.")
      .def(
          "search",
          [](PyDatabase& self, const py::handle& image, std::size_t top, std::size_t verify, std::size_t expand,
             const std::string& scoring, bool exclude_query) {
            const SearchOptions options = queryOptions(top, verify, expand, scoring, exclude_query);
            if (py::isinstance<py::array>(image)) {
              const auto array = py::reinterpret_borrow<py::array>(image);
              if (array.ndim() == 1) {  // a histogram of K counts
                if (!array.dtype().is(py::dtype::of<std::int32_t>()) || !(array.flags() & py::array::c_style))
                  throw py::type_error("search: a histogram must be a C-contiguous 1-D int32 array of K counts");
                const Eigen::Map<const Eigen::Matrix<std::int32_t, 1, Eigen::Dynamic>> histogram(
                    static_cast<const std::int32_t*>(array.data()), array.shape(0));
                return self.reading([&](ImageSearch& s) { return s.search(HistogramRef(histogram), options); });
              }
              const cv::Mat pixels = imageView(array);
              return self.reading([&](ImageSearch& s) { return s.search(pixels, options); });
            }
            const std::string path = pathFrom(image);
            return self.reading([&](ImageSearch& s) { return s.search(path, options); });
          },
          py::arg("image"), py::kw_only(), py::arg("top") = 10, py::arg("verify") = 0, py::arg("expand") = 0,
          py::arg("scoring") = "auto", py::arg("exclude_query") = false,
          "The `top` best matches of a query, best first, as `bovw search` ranks them: `image` is a path, a "
          "uint8/uint16 image array, or a 1-D int32 histogram of K counts (then verify must be 0). verify: re-rank "
          "the best `verify` by geometry (the database must store keypoints); verified results come first. expand: "
          "add the features of up to `expand` verified results inside the query's mapped outline and search again "
          "(query expansion; needs verify > 0). scoring: \"auto\" (default: \"hamming20+log\" where the database stores keypoints and the query is "
          "an image, else \"intersection\"), \"intersection\", \"cosine\", with \"+sqrt\"/\"+log\" and "
          "\"+power<alpha>\" (e.g. \"cosine+sqrt+power0.5\"), or \"hammingBITS[+log]\" (Hamming embedding: needs "
          "stored keypoints and an image query). exclude_query: leave the query's own file out. Returns a list of "
          "SearchResult. Raises InvalidInput for an empty database. The GIL is released.")
      .def(
          "save",
          [](PyDatabase& self, const py::handle& path) {
            const std::string file = pathFrom(path);
            self.alone([&](ImageSearch& s) { s.save(file); });
          },
          py::arg("path"), "Writes the database (in memory or live) as one .bovwdb file, atomically.")
      .def(
          "prepare", [](PyDatabase& self) { self.reading([](ImageSearch& s) { s.prepare(); }); },
          "Makes now what the first search or add of an image makes on first use: the feature extractor and the "
          "histogrammer (an OpenCL one builds or loads its kernels). Optional: a service calls it before it takes "
          "requests. The GIL is released.")
      .def(
          "names",
          [](PyDatabase& self) {
            const std::vector<IndexedImage> images = self.reading([](ImageSearch& s) { return s.images(); });
            py::list names;
            for (const IndexedImage& image : images) names.append(text(image.name));
            return names;
          },
          "The names of every image, by shard, then by id.")
      .def("__len__", [](PyDatabase& self) { return self.reading([](ImageSearch& s) { return s.size(); }); },
           "images in the database")
      .def_property_readonly(
          "vocabulary", [](const PyDatabase& self) -> const Vocabulary& { return self.search().vocabulary(); },
          py::return_value_policy::reference_internal, "the database's vocabulary (shared with it, not copied)")
      .def_property_readonly(
          "features", [](const PyDatabase& self) { return self.search().features().toString(); },
          "what it extracts, as text: \"surf extended=false hessian_threshold=100 ...\"")
      .def_property_readonly("stores_keypoints", [](const PyDatabase& self) { return self.search().storesKeypoints(); },
                             "whether search(verify=...) can verify geometrically")
      .def_property_readonly("shards", [](const PyDatabase& self) { return self.search().shardCount(); },
                             "shards (1 for one file or a live database)")
      .def("__repr__", [](PyDatabase& self) {
        return "<bovw.Database of " + std::to_string(self.reading([](ImageSearch& s) { return s.size(); })) +
               " images, " + self.search().features().kind() + ">";
      });
}

}  // namespace bovw::python
