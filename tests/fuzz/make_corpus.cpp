// Writes the seed corpora of tests/fuzz/corpus with bovw's own writers, plus hand-made edge cases
// of the .npy header that no bovw writer produces (other versions, orders, dtypes). Deterministic:
// rerun it after a format change and commit what changed (docs/FUZZING.md).
//   bovw_fuzz_make_corpus tests/fuzz/corpus
// Inputs that fuzzing found are added to the corpus by hand (named regression-*) and kept.
#include <bovw/feature_registry.hpp>
#include <bovw/file_storage.hpp>
#include <bovw/image_database.hpp>
#include <bovw/inverted_index.hpp>
#include <bovw/npy.hpp>
#include <bovw/shard_generations.hpp>
#include <bovw/shard_manifest.hpp>
#include <bovw/vocabulary_io.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <limits>
#include <string>

using namespace bovw;
namespace fs = std::filesystem;

namespace {

void writeBytes(const fs::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// A .npy file of format `major`.0 with header dict `dict` (padded as numpy pads it) and raw `data`.
std::string npyFile(int major, std::string dict, const std::string& data) {
  const std::size_t length_bytes = major == 1 ? 2 : 4;
  const std::size_t unpadded = 6 + 2 + length_bytes + dict.size() + 1;
  dict.append((64 - unpadded % 64) % 64, ' ');
  dict += '\n';
  std::string file = "\x93NUMPY";
  file += static_cast<char>(major);
  file += '\0';
  for (std::size_t i = 0; i < length_bytes; ++i) file += static_cast<char>((dict.size() >> (8 * i)) & 0xff);
  return file + dict + data;
}

std::string floats(std::initializer_list<float> values) {
  return std::string(reinterpret_cast<const char*>(values.begin()), sizeof(float) * values.size());
}

Descriptors words(int rows, int cols) {
  Descriptors m(rows, cols);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) m(r, c) = 0.5f * static_cast<float>(r) - 0.25f * static_cast<float>(c);
  return m;
}

// Images "image_<i>.png" with word w counted (i + w) mod 3 times, into an index or a database.
template <typename Target>
void addImages(Target& target, int k, int count) {
  for (int i = 0; i < count; ++i) {
    Eigen::Matrix<std::int32_t, 1, Eigen::Dynamic> h(k);
    for (int w = 0; w < k; ++w) h(w) = (i + w) % 3;
    target.add("image_" + std::to_string(i) + ".png", h);
  }
}

// Three keypoints per image, of words 0, 1 and 0, at image-dependent places of a 40 x 30 image.
ImageWords keypointsOf(int image) {
  ImageWords words;
  words.image_size = {40, 30};
  for (int p = 0; p < 3; ++p) {
    words.points.emplace_back(5.0f * p + image, 4.0f * p + 1.0f);
    words.words.push_back(p % 2);
    words.signatures.push_back(0x0123456789abcdefull >> (8 * p + image));
  }
  return words;
}

void npySeeds(const fs::path& dir) {
  npy::writeFloat32Matrix((dir / "float32_2x3.npy").string(), words(2, 3));
  npy::writeFloat32Matrix((dir / "float32_0x4.npy").string(), Descriptors(0, 4));
  npy::writeInt32Vector((dir / "int32_vector.npy").string(), {1, -2, 3});
  npy::writeInt32Matrix((dir / "int32_2x2.npy").string(), Histograms::Ones(2, 2));
  const std::string two = floats({1.0f, -2.5f});
  writeBytes(dir / "int64_vector.npy",
             npyFile(1, "{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }", std::string(16, '\x01')));
  writeBytes(dir / "version2.npy", npyFile(2, "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2), }", two));
  writeBytes(dir / "version3.npy", npyFile(3, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 1), }", two));
  writeBytes(dir / "long_suffix.npy", npyFile(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1L, 2L), }", two));
  writeBytes(dir / "double_quotes.npy",
             npyFile(1, "{\"descr\": \"=f4\", \"fortran_order\": False, \"shape\": (1, 2)}", two));
  writeBytes(dir / "fortran_order.npy", npyFile(1, "{'descr': '<f4', 'fortran_order': True, 'shape': (1, 2), }", two));
  writeBytes(dir / "big_endian.npy", npyFile(1, "{'descr': '>f4', 'fortran_order': False, 'shape': (1, 2), }", two));
  writeBytes(dir / "one_dimensional.npy", npyFile(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", two));
  writeBytes(dir / "not_finite.npy",
             npyFile(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2), }",
                     floats({std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()})));
}

void vocabularySeeds(const fs::path& binary, const fs::path& filestorage, const fs::path& data) {
  saveVocabulary((binary / "float_2x3.bovw").string(), Vocabulary(words(2, 3), DescriptorType::parse("float")));
  saveVocabulary((binary / "empty_type_1x1.bovw").string(), Vocabulary(words(1, 1), DescriptorType::unspecified()));
  fs::copy_file(data / "formats" / "v1.bovw", binary / "version1_5x64.bovw", fs::copy_options::overwrite_existing);
  for (const char* extension : {".yml", ".xml", ".json", ".yml.gz", ".xml.gz"})
    saveVocabulary((filestorage / (std::string("float_2x3") + extension)).string(), Vocabulary(words(2, 3), DescriptorType::parse("float")));
  // A matrix of another element type: OpenCV reads it, bovw must refuse it.
  writeBytes(filestorage / "int_matrix.yml",
             "%YAML:1.0\n---\nvocabulary: !!opencv-matrix\n   rows: 1\n   cols: 2\n   dt: i\n   data: [ 1, 2 ]\n");
  // Valid layouts bovw's writer does not make (tests/io/filestorage_reader_test.cpp has more):
  // a block sequence with OpenCV's number spellings, XML's scalar data of a 1 x 1 matrix.
  writeBytes(filestorage / "block_sequence.yml",
             "%YAML 1.0\n# words\nvocabulary: !!opencv-matrix\n  rows: 2\n  cols: 2\n  dt: f\n  data:\n"
             "    - 017\n    - -2.5\n    - 1e-3\n    - +.5\ndescriptor_type: \"float\"\n");
  writeBytes(filestorage / "scalar_data.xml",
             "<?xml version=\"1.0\"?>\n<opencv_storage>\n<vocabulary type_id=\"opencv-matrix\">\n<rows>1</rows>\n"
             "<cols>1</cols>\n<dt>f</dt>\n<data>\n  -7.25</data></vocabulary>\n</opencv_storage>\n");
  // cv::FileStorage::BASE64, which bovw refuses by name.
  writeFileStorage((filestorage / "base64.yml").string(),
                   [](cv::FileStorage& out) { out << "vocabulary" << cv::Mat(2, 3, CV_32F, cv::Scalar(0.5)); },
                   cv::FileStorage::BASE64);
}

void indexSeeds(const fs::path& dir, const fs::path& data) {
  const VocabularySignature signature{4, 3, DescriptorType::parse("float"), 12345};
  InvertedIndex(signature).save((dir / "empty.bovwidx").string());
  InvertedIndex index(signature);
  addImages(index, signature.words, 3);
  index.remove("image_1.png");
  index.save((dir / "three_images_one_removed.bovwidx").string());
  fs::copy_file(data / "formats" / "v1.bovwidx", dir / "version1.bovwidx", fs::copy_options::overwrite_existing);
}

void databaseSeeds(const fs::path& dir, const fs::path& data) {
  for (const char* kind : {"surf", "sift", "orb"}) {
    const FeatureSpec spec = normalizeFeatureSpec(FeatureSpec(kind));
    ExtractorOptions builtin;
    builtin.surf_backend = SurfBackend::Builtin;
    const auto extractor = makeFeatureExtractor(spec, builtin);
    ImageDatabase database(Vocabulary(words(2, extractor->descriptorSize()), extractor->descriptorType()), spec);
    addImages(database, database.vocabulary().size(), 2);
    database.save((dir / (std::string(kind) + "_two_images.bovwdb")).string());
  }
  // Version 4's keypoint block: two images with keypoints, one removed (its slot left empty).
  const FeatureSpec surf = normalizeFeatureSpec(FeatureSpec("surf"));
  ImageDatabase with_keypoints(Vocabulary(words(2, 64), DescriptorType("surf", 64)), surf, DatabaseOptions{true});
  for (int i = 0; i < 3; ++i) with_keypoints.add("image_" + std::to_string(i) + ".png", keypointsOf(i));
  with_keypoints.remove("image_1.png");
  with_keypoints.save((dir / "surf_keypoints.bovwdb").string());
  for (const char* version : {"v1", "v2", "v3"})
    fs::copy_file(data / "formats" / (std::string(version) + ".bovwdb"),
                  dir / ("version" + std::string(version + 1) + ".bovwdb"), fs::copy_options::overwrite_existing);
}

// Manifests as `index --shards` writes them, and the forms a hand-edited one may take that the
// reader accepts (a byte order mark, escapes, an absolute path, keys in another order, a field
// bovw does not know).
void shardManifestSeeds(const fs::path& dir) {
  ShardManifest manifest;
  manifest.shards = shardFileNames("S.bovwshards", 1, 3);
  manifest.words = 1000;
  manifest.descriptor_type = "surf64";
  manifest.fingerprint = 0x1f0c9a3b5e7d2468ull;
  manifest.features = "surf extended=false hessian_threshold=100 octave_layers=3 octaves=4 upright=false";
  std::ostringstream written;
  manifest.write(written);
  writeBytes(dir / "three_shards.bovwshards", written.str());
  writeBytes(dir / "byte_order_mark.bovwshards", "\xEF\xBB\xBF" + written.str());
  writeBytes(dir / "by_hand.bovwshards",
             "{\"shards\": [\"/data/db/S-g7-0.bovwdb\", \"sub/\\u00e9t\\u00E9.bovwdb\", \"S-0.bovwdb\"],\n"
             " \"format\": \"bovw shards\", \"version\": 1, \"words\": 2, \"descriptor_type\": \"orb256-binary\",\n"
             " \"vocabulary_fingerprint\": \"0000000000000001\", \"features\": \"orb\", \"note\": {\"by\": [1, 2.5, null]}}\n");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s CORPUS_DIR (tests/fuzz/corpus)\n", argv[0]);
    return 2;
  }
  const fs::path root = argv[1];
  const fs::path data = fs::path(BOVW_TEST_DATA);
  for (const char* reader : {"npy", "vocabulary_binary", "vocabulary_filestorage", "index", "database", "shard_manifest"})
    fs::create_directories(root / reader);
  npySeeds(root / "npy");
  vocabularySeeds(root / "vocabulary_binary", root / "vocabulary_filestorage", data);
  indexSeeds(root / "index", data);
  databaseSeeds(root / "database", data);
  shardManifestSeeds(root / "shard_manifest");
  return 0;
}
