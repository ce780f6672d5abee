// bovw's own FileStorage reader (src/io/filestorage_reader.hpp) against cv::FileStorage, the
// independent reference: on every valid file (bovw's writer's, in each syntax and gzipped, and
// hand-written variants OpenCV reads) the same matrix bit for bit and the same descriptor type; on
// hostile files (issue 19: the input that hangs OpenCV, deep nesting, bombs, lying sizes) a quick
// InvalidInput naming the file, with memory bounded.
#include "support/test_support.hpp"

#include "io/filestorage_reader.hpp"
#include "io/vocabulary_formats.hpp"

#include <bovw/error.hpp>
#include <bovw/file_storage.hpp>
#include <bovw/vocabulary_io.hpp>

#include <opencv2/core.hpp>

#include <sys/resource.h>
#include <zlib.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace bovw::test {
namespace {

namespace fs = std::filesystem;

// Peak resident memory of this process so far, in MiB.
long peakMiB() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024;
}

std::string gzip(const std::string& text) {
  uLongf size = compressBound(static_cast<uLong>(text.size())) + 32;
  std::string out(size, '\0');
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY), Z_OK);
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

// `text` and then spaces up to `size` bytes, gzipped a piece at a time (the whole never in memory;
// run-length matches only, which squeeze spaces as well as any and fast).
std::string gzipPadded(const std::string& text, std::size_t size) {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 9, Z_RLE), Z_OK);
  std::string piece = text + std::string((std::size_t{1} << 20) - text.size(), ' ');
  std::string out, chunk(std::size_t{1} << 16, '\0');
  for (std::size_t fed = 0; fed < size; fed += piece.size()) {
    const bool last = fed + piece.size() >= size;
    z.next_in = reinterpret_cast<Bytef*>(piece.data());
    z.avail_in = static_cast<uInt>(piece.size());
    int status;
    do {
      z.next_out = reinterpret_cast<Bytef*>(chunk.data());
      z.avail_out = static_cast<uInt>(chunk.size());
      status = deflate(&z, last ? Z_FINISH : Z_NO_FLUSH);
      out.append(chunk.data(), chunk.size() - z.avail_out);
    } while (z.avail_out == 0 || (last && status != Z_STREAM_END));
    piece.assign(piece.size(), ' ');
  }
  deflateEnd(&z);
  return out;
}

class FileStorageReader : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("bovw_filestorage_" + std::to_string(::getpid()) + "_" +
                                        testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::string write(const std::string& name, const std::string& bytes) const {
    std::ofstream(path(name), std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return path(name);
  }

  // bovw's reader and cv::FileStorage agree on `file`: the same K x D CV_32F bits, the same type.
  static void expectSameAsOpenCv(const std::string& file) {
    SCOPED_TRACE(file);
    cv::FileStorage storage(file, cv::FileStorage::READ);
    ASSERT_TRUE(storage.isOpened()) << "OpenCV does not read this case: the test is wrong";
    cv::Mat expected;
    std::string type;
    storage["vocabulary"] >> expected;
    storage["descriptor_type"] >> type;
    ASSERT_EQ(expected.type(), CV_32F) << "not a float matrix for OpenCV: the test is wrong";
    ASSERT_TRUE(expected.isContinuous());
    const Vocabulary loaded = detail::loadVocabularyFileStorage(file);
    ASSERT_EQ(loaded.size(), expected.rows);
    ASSERT_EQ(loaded.dimension(), expected.cols);
    EXPECT_EQ(std::memcmp(loaded.centroids().data(), expected.ptr<float>(), expected.total() * sizeof(float)), 0)
        << "not the same bits";
    EXPECT_EQ(loaded.descriptorType(), type.empty() ? DescriptorType::unspecified() : DescriptorType::parse(type));
  }

  // `file` is refused with an InvalidInput naming it, within `seconds`; the refusal says `problem`.
  static void expectRefused(const std::string& file, const std::string& problem, double seconds = 5.0) {
    SCOPED_TRACE(file);
    const auto start = std::chrono::steady_clock::now();
    try {
      detail::loadVocabularyFileStorage(file);
      ADD_FAILURE() << "accepted";
    } catch (const InvalidInput& e) {
      EXPECT_NE(std::string(e.what()).find(file), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(problem), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << "not one line: " << e.what();
    }
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), seconds);
  }

  fs::path dir_;
};

// Words that test the number printing and reading: negative zero, tiny and huge magnitudes,
// subnormals, values a float32 holds exactly and values it does not.
Descriptors awkwardWords(std::mt19937_64& rng, int rows, int cols) {
  Descriptors words = randomMatrix(rng, rows, cols, -1.0f, 1.0f);
  const float specials[] = {-0.0f, 1e-30f, -3.4e38f, 1.17549435e-38f, 1e-45f, 0.1f, 16777217.0f, 123456.789f};
  for (int i = 0; i < rows * cols && i < 8; ++i) words.data()[i * 7 % (rows * cols)] = specials[i];
  return words;
}

TEST_F(FileStorageReader, BovwWritersFilesInEverySyntaxMatchOpenCv) {
  BOVW_SEEDED_RNG(rng);
  for (const auto& [rows, cols] : {std::pair{1, 1}, {2, 3}, {7, 64}, {37, 128}, {1, 200}, {300, 1}}) {
    const Vocabulary vocabulary(awkwardWords(rng, rows, cols), cols == 64 ? DescriptorType("surf", 64) : DescriptorType::parse("float"));
    for (const char* extension : {".yml", ".yml.gz", ".yaml", ".xml", ".xml.gz", ".json", ".json.gz"}) {
      const std::string file = path("v" + std::to_string(rows) + "x" + std::to_string(cols) + extension);
      detail::saveVocabularyFileStorage(file, vocabulary);
      expectSameAsOpenCv(file);
      EXPECT_TRUE(detail::loadVocabularyFileStorage(file).centroids() == vocabulary.centroids()) << file;
    }
  }
}

// Files bovw's writer does not make but OpenCV reads: other layouts, headers, number spellings.
TEST_F(FileStorageReader, HandWrittenFilesOpenCvReadsMatchOpenCv) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"block_sequence.yml",
       "%YAML:1.0\n---\ndescriptor_type: float\nvocabulary: !!opencv-matrix\n  rows: 2\n  cols: 2\n  dt: f\n"
       "  data:\n    - 1\n    - -2.5\n    - 1e-3\n    - .5\n"},
      {"comments_and_spaces.yml",
       "%YAML:1.0\n# a comment\n---\n# another\nvocabulary:   !!opencv-matrix   # the words\n"
       "      rows:    1\n      cols: 3\n      dt:   f\n      data: [   +.5 ,  -0.,\n          7  ]   # end\n"},
      {"standard_header_no_dashes.yml", "%YAML 1.0\nvocabulary: !!opencv-matrix\n   rows: 1\n   cols: 2\n   dt: f\n"
                                         "   data: [ 3.25, -4 ]\n"},
      {"keys_in_another_order.yml",
       "%YAML:1.0\nother: [ 1, 2 ]\nvocabulary: !!opencv-matrix\n   data: [ 1., 2., 3., 4., 5., 6. ]\n   dt: \"f\"\n"
       "   cols: 2\n   rows: 3\ndescriptor_type: \"surf\"\n"},
      {"integers_octal_hex.yml", "%YAML:1.0\nvocabulary: !!opencv-matrix\n   rows: 0x2\n   cols: 2\n   dt: f\n"
                                  "   data: [ 017, 0x1F, -12, 2147483647 ]\n"},
      {"double_rounding.yml",  // halfway between two floats only after rounding to double first
       "%YAML:1.0\nvocabulary: !!opencv-matrix\n   rows: 1\n   cols: 4\n   dt: f\n"
       "   data: [ 1.000000059604644775390625000000000001, 0.1, 3.40282346e38, 1e-46 ]\n"},
      {"crlf.yml", "%YAML:1.0\r\n---\r\nvocabulary: !!opencv-matrix\r\n   rows: 1\r\n   cols: 2\r\n   dt: f\r\n"
                   "   data: [ 1.5, 2.5 ]\r\n"},
      {"one_channel_dt.yml", "%YAML:1.0\nvocabulary: !!opencv-matrix\n   rows: 1\n   cols: 1\n   dt: \"1f\"\n   data: [ 9 ]\n"},
      {"spaces.xml",
       "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!-- words -->\n<opencv_storage>\n<descriptor_type>surf</descriptor_type>\n"
       "<vocabulary type_id='opencv-matrix'>\n<rows>2</rows><cols>\n 2 </cols>\n<dt>f</dt>\n"
       "<data>1e-3\n\t-2.5 <!-- inside --> +.5\n 017</data></vocabulary>\n</opencv_storage>\n"},
      {"scalar_data.xml",
       "<?xml version=\"1.0\"?>\n<opencv_storage>\n<vocabulary type_id=\"opencv-matrix\">\n<rows>1</rows>\n<cols>1</cols>\n"
       "<dt>f</dt>\n<data>\n  -7.25</data></vocabulary>\n</opencv_storage>\n"},
      {"compact.json",
       "{\"vocabulary\":{\"type_id\":\"opencv-matrix\",\"rows\":2,\"cols\":1,\"dt\":\"f\",\"data\":[1e-3,-4]},"
       "\"descriptor_type\":\"float\"}"},
      {"spaced.json",
       "{\n  \"descriptor_type\" : \"sift\" ,\n  \"vocabulary\" : {\n    \"data\" : [ 0.25 , 1.0e2 ],\n"
       "    \"rows\" : 1 , \"cols\" : 2 , \"dt\" : \"f\", \"type_id\" : \"opencv-matrix\" } }\n"},
  };
  for (const auto& [name, text] : cases) expectSameAsOpenCv(write(name, text));
  // gzip is told by its content, as zlib's gzopen does: compressed hand-written files too.
  expectSameAsOpenCv(write("block_sequence.yml.gz", gzip(cases[0].second)));
  expectSameAsOpenCv(write("compact.json.gz", gzip(cases[11].second)));
}

TEST_F(FileStorageReader, TheFilesFuzzingFoundInOpenCvAreRefusedAtOnce) {
  // Loops forever in Debian's OpenCV 4.6 (issue 19) and throws std::length_error there.
  expectRefused(write("hang.yml", "%YAML:1.0.\n   rt: M\nML:%YAML:1.\n-"), "YAML error at line 3");
  expectRefused(write("length_error.yml", "%YAML:1.0.\n   rt: M\n   :"), "YAML error at line 3");
}

TEST_F(FileStorageReader, MalformedMatricesAreRefused) {
  const std::string head = "%YAML:1.0\nvocabulary: !!opencv-matrix\n";
  const std::vector<std::tuple<std::string, std::string, std::string>> cases = {
      {"empty.yml", "", "empty file"},
      {"not_filestorage.yml", "vocabulary: [1]\n", "not OpenCV FileStorage"},
      // OpenCV's format detection skips a byte order mark, but its YAML parser then refuses it.
      {"bom.yml", "\xEF\xBB\xBF%YAML:1.0\nvocabulary: 1\n", "not OpenCV FileStorage"},
      {"yaml2.yml", "%YAML:2.0\nvocabulary: 1\n", "unsupported YAML version"},
      {"no_vocabulary.yml", "%YAML:1.0\nother: 1\n", "no 'vocabulary'"},
      {"top_sequence.yml", "%YAML:1.0\n- 1\n- 2\n", "the top level is a sequence"},
      {"int_matrix.yml", head + "   rows: 1\n   cols: 2\n   dt: i\n   data: [ 1, 2 ]\n", "its dt is 'i'"},
      {"double_matrix.yml", head + "   rows: 1\n   cols: 2\n   dt: d\n   data: [ 1, 2 ]\n", "its dt is 'd'"},
      {"two_channels.yml", head + "   rows: 1\n   cols: 1\n   dt: \"2f\"\n   data: [ 1, 2 ]\n", "its dt is '2f'"},
      {"numeric_dt.yml", head + "   rows: 1\n   cols: 1\n   dt: 2f\n   data: [ 1, 2 ]\n", "dt is not a string"},
      {"nd_matrix.yml", "%YAML:1.0\nvocabulary: !!opencv-nd-matrix\n   sizes: [ 1, 1, 1 ]\n   dt: f\n   data: [ 1 ]\n",
       "not an opencv-matrix"},
      {"sizes.yml", head + "   sizes: [ 1, 2 ]\n   dt: f\n   data: [ 1, 2 ]\n", "n-dimensional"},
      {"no_rows.yml", head + "   cols: 2\n   dt: f\n   data: [ 1, 2 ]\n", "has no 'rows'"},
      {"zero_rows.yml", head + "   rows: 0\n   cols: 2\n   dt: f\n   data: [ ]\n", "has 0 rows"},
      {"negative_cols.yml", head + "   rows: 1\n   cols: -2\n   dt: f\n   data: [ 1, 2 ]\n", "has -2 cols"},
      {"text_rows.yml", head + "   rows: two\n   cols: 2\n   dt: f\n   data: [ 1, 2 ]\n", "rows is not an integer"},
      {"huge_declared.yml", head + "   rows: 2147483647\n   cols: 2147483647\n   dt: f\n   data: [ 1 ]\n",
       "declares 2147483647 x 2147483647"},
      {"too_big_integer.yml", head + "   rows: 4294967297\n   cols: 1\n   dt: f\n   data: [ 1 ]\n", "does not fit in 32 bits"},
      {"fewer_values.yml", head + "   rows: 2\n   cols: 2\n   dt: f\n   data: [ 1, 2, 3 ]\n", "data holds 3"},
      {"more_values.yml", head + "   rows: 1\n   cols: 2\n   dt: f\n   data: [ 1, 2, 3 ]\n", "data holds 3"},
      {"string_value.yml", head + "   rows: 1\n   cols: 2\n   dt: f\n   data: [ 1, \"2\" ]\n", "element 2 is the text"},
      {"nan.yml", head + "   rows: 1\n   cols: 2\n   dt: f\n   data: [ 1, .nan ]\n", "'.nan' is not a number"},
      {"word_nan.yml", head + "   rows: 1\n   cols: 2\n   dt: f\n   data: [ 1, nan ]\n", "element 2 is the text"},
      {"infinite.yml", head + "   rows: 1\n   cols: 2\n   dt: f\n   data: [ 1, 1e999 ]\n", "NaN or Inf"},
      {"float_overflow.yml", head + "   rows: 1\n   cols: 2\n   dt: f\n   data: [ 1, 3.5e38 ]\n", "NaN or Inf"},
      {"trailing_text.yml", head + "   rows: 1\n   cols: 2\n   dt: f\n   data: [ 1, 2.5x ]\n", "'2.5x' is not a number"},
      {"nested_data.yml", head + "   rows: 1\n   cols: 2\n   dt: f\n   data: [ 1, [ 2 ] ]\n", "element 2 is a sequence, not a number"},
      {"map_data.yml", head + "   rows: 1\n   cols: 1\n   dt: f\n   data: { a: 1 }\n", "data is a map"},
      {"scalar_vocabulary.yml", "%YAML:1.0\nvocabulary: 3\n", "is not a matrix"},
      {"duplicate.yml", head + "   rows: 1\n   rows: 1\n   cols: 1\n   dt: f\n   data: [ 1 ]\n", "'rows' is given twice"},
      {"numeric_type.yml", head + "   rows: 1\n   cols: 1\n   dt: f\n   data: [ 1 ]\ndescriptor_type: 5\n",
       "'descriptor_type' is not a string"},
      {"unknown_type.yml", head + "   rows: 1\n   cols: 1\n   dt: f\n   data: [ 1 ]\ndescriptor_type: \"surf9\"\n", "surf9"},
      {"wrong_width.yml", head + "   rows: 1\n   cols: 1\n   dt: f\n   data: [ 1 ]\ndescriptor_type: surf64\n", "width"},
      {"binary.yml", head + "   rows: 1\n   cols: 1\n   dt: f\n   data: !!binary |\n     AAAAAA==\n", "base64"},
      {"anchor.yml", head + "   rows: &r 1\n   cols: *r\n   dt: f\n   data: [ 1 ]\n", "anchors and aliases"},
      {"xml_root.xml", "<?xml version=\"1.0\"?>\n<storage><vocabulary/></storage>\n", "not <opencv_storage>"},
      {"xml_broken.xml", "<?xml version=\"1.0\"?>\n<opencv_storage><vocabulary>\n", "XML error"},
      {"xml_mixed.xml", "<?xml version=\"1.0\"?>\n<opencv_storage><vocabulary type_id=\"opencv-matrix\">1<rows>1</rows>"
                        "</vocabulary></opencv_storage>\n", "mixes text and elements"},
      {"xml_quote.xml", "<?xml version=\"1.0\"?>\n<opencv_storage><descriptor_type>\"surf</descriptor_type></opencv_storage>\n",
       "closing \""},
      {"json_broken.json", "{\"vocabulary\": {\"rows\": 1,", "JSON error"},
      {"json_top_array.json", "[1, 2]", "not OpenCV FileStorage"},
      {"json_bool.json", "{\"vocabulary\": {\"type_id\": \"opencv-matrix\", \"rows\": 1, \"cols\": 1, \"dt\": \"f\", \"data\": [true]}}",
       "element 1 is the text 'true'"},
      {"json_wrong_type.json", "{\"vocabulary\": {\"type_id\": \"opencv-sparse-matrix\", \"rows\": 1}}", "opencv-sparse-matrix"},
  };
  for (const auto& [name, text, problem] : cases) expectRefused(write(name, text), problem);
}

// What cv::FileStorage::BASE64 writes: OpenCV reads it; bovw says plainly that it does not.
TEST_F(FileStorageReader, Base64MatricesAreRefusedWithTheirName) {
  const cv::Mat words(2, 3, CV_32F, cv::Scalar(0.5));
  for (const char* name : {"b.yml", "b.xml", "b.json"}) {
    writeFileStorage(path(name), [&](cv::FileStorage& out) { out << "vocabulary" << words; }, cv::FileStorage::BASE64);
    expectRefused(path(name), "base64");
  }
}

TEST_F(FileStorageReader, DeepNestingIsRefusedWithoutRecursion) {
  const std::size_t depth = 1000000;
  expectRefused(write("deep_flow.yml", "%YAML:1.0\nvocabulary: " + std::string(depth, '[') + std::string(depth, ']') + "\n"),
                "nested more than 64");
  std::string block = "%YAML:1.0\n";
  for (int i = 0; i < 2000; ++i) block += std::string(static_cast<std::size_t>(i), ' ') + "k:\n";
  expectRefused(write("deep_block.yml", block), "nested more than 64");
  expectRefused(write("deep.json", "{\"vocabulary\":" + std::string(depth, '[') + std::string(depth, ']') + "}"),
                "nested more than 64");
  std::string xml = "<?xml version=\"1.0\"?>\n<opencv_storage>";
  for (std::size_t i = 0; i < depth / 10; ++i) xml += "<a>";
  for (std::size_t i = 0; i < depth / 10; ++i) xml += "</a>";
  expectRefused(write("deep.xml", xml + "</opencv_storage>\n"), "nested more than 64");
}

TEST_F(FileStorageReader, ExpansionBombsAreNotExpanded) {
  // "Billion laughs" in YAML: aliases are refused before any is expanded.
  std::string yaml = "%YAML:1.0\na: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n";
  for (char c = 'b'; c <= 'j'; ++c) {
    yaml += std::string(1, c) + ": &" + c + " [";
    for (int i = 0; i < 9; ++i) yaml += std::string(i ? "," : "") + "*" + static_cast<char>(c - 1);
    yaml += "]\n";
  }
  const long before = peakMiB();
  expectRefused(write("laughs.yml", yaml), "anchors and aliases");
  // ... and in XML: the DTD's entities are never declared to the parser, so never expanded.
  std::string xml = "<?xml version=\"1.0\"?>\n<!DOCTYPE opencv_storage [\n<!ENTITY a \"lollollollollollollollol\">\n";
  for (char c = 'b'; c <= 'j'; ++c) {
    xml += std::string("<!ENTITY ") + c + " \"";
    for (int i = 0; i < 10; ++i) xml += std::string("&") + static_cast<char>(c - 1) + ";";
    xml += "\">\n";
  }
  xml += "]>\n<opencv_storage><vocabulary type_id=\"opencv-matrix\"><rows>1</rows><cols>1</cols><dt>f</dt>"
         "<data>&j;</data></vocabulary></opencv_storage>\n";
  expectRefused(write("laughs.xml", xml), "data is the text '&j;'");
  EXPECT_LT(peakMiB() - before, 100);
}

TEST_F(FileStorageReader, DamagedAndExplosiveGzipIsRefused) {
  BOVW_SEEDED_RNG(rng);
  detail::saveVocabularyFileStorage(path("v.yml.gz"), Vocabulary(randomMatrix(rng, 20, 16), DescriptorType::parse("float")));
  std::ifstream in(path("v.yml.gz"), std::ios::binary);
  const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  for (std::size_t size : {std::size_t{2}, std::size_t{10}, bytes.size() / 2, bytes.size() - 1})
    expectRefused(write("cut" + std::to_string(size) + ".yml.gz", bytes.substr(0, size)), "gzip");
  std::string flipped = bytes;
  flipped[bytes.size() - 6] = static_cast<char>(flipped[bytes.size() - 6] ^ 0x10);  // the CRC-32
  expectRefused(write("crc.yml.gz", flipped), "damaged gzip data");
  expectRefused(write("trailing.yml.gz", bytes + "garbage"), "not gzip after the gzip data");
  // Two members, as `cat a.gz b.gz` makes: read as their concatenated text (zlib's gzread does).
  const std::string text = "%YAML:1.0\nvocabulary: !!opencv-matrix\n   rows: 1\n   cols: 2\n   dt: f\n   data: [ 1.5, 2.5 ]\n";
  expectSameAsOpenCv(write("members.yml.gz", gzip(text.substr(0, 30)) + gzip(text.substr(30))));
  // A gzip bomb: 512 MiB of spaces after the header, about 500 KiB compressed. Refused after
  // inflating at most 200 times the file's size (100 MiB), not the whole.
  const long before = peakMiB();
  expectRefused(write("bomb.yml.gz", gzipPadded("%YAML:1.0\n", std::size_t{1} << 29)), "gzip bomb", 20.0);
  EXPECT_LT(peakMiB() - before, 250);
}

// The reader's memory follows what the file holds, not what it declares: a matrix that declares
// 2^31 x 2^31 words with one value allocates nothing for them.
TEST_F(FileStorageReader, DeclaredSizesAreNeverTrusted) {
  const long before = peakMiB();
  for (const char* syntax : {"yml", "xml", "json"}) {
    const std::string text =
        std::string(syntax) == "yml"
            ? "%YAML:1.0\nvocabulary: !!opencv-matrix\n   rows: 2147483647\n   cols: 2147483647\n   dt: f\n   data: [ 1 ]\n"
        : std::string(syntax) == "xml"
            ? "<?xml version=\"1.0\"?>\n<opencv_storage><vocabulary type_id=\"opencv-matrix\"><rows>2147483647</rows>"
              "<cols>2147483647</cols><dt>f</dt><data>1</data></vocabulary></opencv_storage>\n"
            : "{\"vocabulary\": {\"type_id\": \"opencv-matrix\", \"rows\": 2147483647, \"cols\": 2147483647, \"dt\": \"f\", "
              "\"data\": [1]}}";
    expectRefused(write(std::string("huge.") + syntax, text), "data holds 1");
  }
  EXPECT_LT(peakMiB() - before, 50);
}

}  // namespace
}  // namespace bovw::test
