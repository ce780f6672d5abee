// bovw::npy against an independent writer and reader: .npy bytes composed by hand here (the format
// is a magic string, a version, a Python-dict header padded to 64 bytes, raw little-endian data),
// numpy itself when python3 with numpy is installed, every malformed file of issue 2, and the
// two-step read (shape, then data) into memory the caller provides.
#include "support/io_test_support.hpp"
#include "support/test_support.hpp"

#include <bovw/atomic_file.hpp>
#include <bovw/error.hpp>
#include <bovw/npy.hpp>

#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <stdexcept>
#include <typeinfo>

namespace bovw::test {
namespace {

// --- An independent .npy writer and parser ----------------------------------------------------

template <typename T>
std::string littleEndianBytes(T value) {
  static_assert(std::is_trivially_copyable_v<T>);
  std::uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof(T));  // reinterpret, then emit bytes LSB first: host-order free
  std::string out;
  for (std::size_t i = 0; i < sizeof(T); ++i) out += static_cast<char>((bits >> (8 * i)) & 0xff);
  return out;
}

template <typename T>
std::string dataBytes(const std::vector<T>& values) {
  std::string out;
  for (T v : values) out += littleEndianBytes(v);
  return out;
}

// A complete .npy file: `dict` is the header text (without padding); version 1 uses a 2-byte
// header length, 2 and 3 a 4-byte one.
std::string npyFile(const std::string& dict, const std::string& data, int major = 1) {
  const std::size_t length_bytes = major == 1 ? 2 : 4;
  std::string header = dict;
  const std::size_t unpadded = 6 + 2 + length_bytes + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += static_cast<char>(major);
  out += '\0';
  for (std::size_t i = 0; i < length_bytes; ++i) out += static_cast<char>((header.size() >> (8 * i)) & 0xff);
  return out + header + data;
}

std::string dict(const std::string& descr, const std::string& shape, bool fortran = false) {
  return "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") + ", 'shape': " + shape +
         ", }";
}

struct ParsedNpy {
  int major = 0;
  std::string header;
  std::size_t data_offset = 0;
  std::string data;
};

// Parses what the library wrote, by hand.
ParsedNpy parseNpy(const std::string& bytes) {
  ParsedNpy p;
  EXPECT_GE(bytes.size(), 10u);
  EXPECT_EQ(bytes.substr(0, 6), std::string("\x93NUMPY"));
  p.major = static_cast<unsigned char>(bytes[6]);
  const std::size_t length_bytes = p.major == 1 ? 2 : 4;
  std::size_t length = 0;
  for (std::size_t i = 0; i < length_bytes; ++i)
    length |= static_cast<std::size_t>(static_cast<unsigned char>(bytes[8 + i])) << (8 * i);
  p.data_offset = 8 + length_bytes + length;
  p.header = bytes.substr(8 + length_bytes, length);
  p.data = bytes.substr(p.data_offset);
  return p;
}

// Values with a known formula, exactly representable in float32.
float f32Value(Eigen::Index i, Eigen::Index j) { return static_cast<float>(i) * 0.25f - static_cast<float>(j) * 3.0f + 0.125f; }

std::string findPythonWithNumpy() {
  for (const char* candidate : {"python3", "/usr/bin/python3"}) {
    const std::string command = std::string(candidate) + " -c \"import numpy\" >/dev/null 2>&1";
    if (std::system(command.c_str()) == 0) return candidate;
  }
  return "";
}

class Npy : public ScratchDirTest {};

// --- Reading files written independently -----------------------------------------------------------

TEST_F(Npy, ReadsHandWrittenFloat32Matrix) {
  BOVW_SEEDED_RNG(rng);
  for (int major : {1, 2, 3}) {
    const Descriptors expected = randomMatrix(rng, 10, 64, -1e6f, 1e6f);
    std::vector<float> values(expected.data(), expected.data() + expected.size());
    const std::string file = path("m" + std::to_string(major) + ".npy");
    writeBytes(file, npyFile(dict("<f4", "(10, 64)"), dataBytes(values), major));
    const Descriptors m = npy::readFloat32Matrix(file);
    ASSERT_EQ(m.rows(), 10);
    ASSERT_EQ(m.cols(), 64);
    EXPECT_TRUE((m.array() == expected.array()).all()) << "version " << major;
  }
  // Keys in another order, no trailing comma, extra spaces: still a valid header.
  const std::string file = path("reordered.npy");
  writeBytes(file, npyFile("{'shape':(2,3),  'fortran_order' : False , 'descr':'<f4'}",
                           dataBytes(std::vector<float>{1, 2, 3, 4, 5, 6})));
  const Descriptors m = npy::readFloat32Matrix(file);
  ASSERT_EQ(m.rows(), 2);
  ASSERT_EQ(m.cols(), 3);
  EXPECT_EQ(m(1, 0), 4.0f);
  EXPECT_EQ(m(0, 2), 3.0f);
}

TEST_F(Npy, ReadsEmptyMatrix) {
  const std::string file = path("empty.npy");
  writeBytes(file, npyFile(dict("<f4", "(0, 64)"), ""));
  const Descriptors m = npy::readFloat32Matrix(file);
  EXPECT_EQ(m.rows(), 0);
  EXPECT_EQ(m.cols(), 64);
}

TEST_F(Npy, ReadsInt64AndInt32VectorsWidened) {
  const std::vector<std::int64_t> i64{0, 5, 5, std::int64_t{1} << 40, -3, std::numeric_limits<std::int64_t>::max()};
  writeBytes(path("i64.npy"), npyFile(dict("<i8", "(6,)"), dataBytes(i64)));
  EXPECT_EQ(npy::readInt64Vector(path("i64.npy")), i64);

  const std::vector<std::int32_t> i32{0, -1, 7, std::numeric_limits<std::int32_t>::max(),
                                      std::numeric_limits<std::int32_t>::min()};
  writeBytes(path("i32.npy"), npyFile(dict("<i4", "(5,)"), dataBytes(i32)));
  EXPECT_EQ(npy::readInt64Vector(path("i32.npy")), std::vector<std::int64_t>(i32.begin(), i32.end()));

  writeBytes(path("none.npy"), npyFile(dict("<i8", "(0,)"), ""));
  EXPECT_TRUE(npy::readInt64Vector(path("none.npy")).empty());
}

// --- Reading into the caller's memory -------------------------------------------------------------

TEST_F(Npy, ReadsShapeThenDataIntoCallerMemory) {
  BOVW_SEEDED_RNG(rng);
  const Descriptors expected = randomMatrix(rng, 13, 64, -1e3f, 1e3f);
  const std::string file = path("m.npy");
  writeBytes(file, npyFile(dict("<f4", "(13, 64)"), dataBytes(std::vector<float>(expected.data(), expected.data() + expected.size()))));
  const npy::MatrixShape shape = npy::readFloat32MatrixShape(file);
  EXPECT_EQ(shape.rows, 13);
  EXPECT_EQ(shape.cols, 64);

  // Foreign memory behind a map, as a pinned buffer would be.
  std::vector<float> memory(13 * 64, -7.0f);
  Eigen::Map<Descriptors> mapped(memory.data(), 13, 64);
  npy::readFloat32MatrixInto(file, mapped);
  EXPECT_TRUE((mapped.array() == expected.array()).all());

  // A row block and a (strided) column block of larger matrices: the rest stays as it was.
  Descriptors tall = Descriptors::Constant(20, 64, 42.0f);
  npy::readFloat32MatrixInto(file, tall.middleRows(4, 13));
  EXPECT_TRUE((tall.middleRows(4, 13).array() == expected.array()).all());
  EXPECT_TRUE((tall.topRows(4).array() == 42.0f).all() && (tall.bottomRows(3).array() == 42.0f).all());
  Descriptors wide = Descriptors::Constant(13, 70, 42.0f);
  npy::readFloat32MatrixInto(file, wide.rightCols(64));
  EXPECT_TRUE((wide.rightCols(64).array() == expected.array()).all());
  EXPECT_TRUE((wide.leftCols(6).array() == 42.0f).all());

  writeBytes(path("empty.npy"), npyFile(dict("<f4", "(0, 64)"), ""));
  Descriptors empty(0, 64);
  npy::readFloat32MatrixInto(path("empty.npy"), empty);
  EXPECT_EQ(npy::readFloat32MatrixShape(path("empty.npy")).rows, 0);
}

TEST_F(Npy, ReadingIntoAMatrixOfAnotherShapeIsInvalidInputNamingBoth) {
  BOVW_SEEDED_RNG(rng);
  const std::string file = path("m.npy");
  npy::writeFloat32Matrix(file, randomMatrix(rng, 10, 64));
  for (auto [rows, cols] : {std::pair{11, 64}, std::pair{10, 63}, std::pair{640, 1}, std::pair{0, 64}}) {
    Descriptors out = Descriptors::Constant(rows, cols, 5.0f);
    try {
      npy::readFloat32MatrixInto(file, out);
      ADD_FAILURE() << "read a (10, 64) file into " << rows << " x " << cols;
    } catch (const InvalidInput& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find(file), std::string::npos) << message;
      EXPECT_NE(message.find("(10, 64)"), std::string::npos) << message;
      EXPECT_NE(message.find(std::to_string(rows) + " x " + std::to_string(cols)), std::string::npos) << message;
    }
    EXPECT_TRUE((out.array() == 5.0f).all()) << "nothing may be written before the shape is checked";
  }
}

// --- What the library writes, parsed by hand ---------------------------------------------------------

TEST_F(Npy, WrittenFloat32MatrixHasTheStandardLayout) {
  Descriptors m(3, 5);
  for (Eigen::Index i = 0; i < 3; ++i)
    for (Eigen::Index j = 0; j < 5; ++j) m(i, j) = f32Value(i, j);
  npy::writeFloat32Matrix(path("m.npy"), m);
  const ParsedNpy p = parseNpy(readBytes(path("m.npy")));
  EXPECT_EQ(p.data_offset % 64, 0u) << "numpy aligns the data to 64 bytes";
  EXPECT_EQ(p.header.back(), '\n');
  EXPECT_NE(p.header.find("'descr': '<f4'"), std::string::npos) << p.header;
  EXPECT_NE(p.header.find("'fortran_order': False"), std::string::npos) << p.header;
  EXPECT_NE(p.header.find("'shape': (3, 5)"), std::string::npos) << p.header;
  std::vector<float> expected;
  for (Eigen::Index i = 0; i < 3; ++i)
    for (Eigen::Index j = 0; j < 5; ++j) expected.push_back(f32Value(i, j));
  EXPECT_EQ(p.data, dataBytes(expected));
}

TEST_F(Npy, WrittenInt32MatrixAndVectorHaveTheStandardLayout) {
  Histograms h(2, 3);
  h << 1, -2, 3, 400000, 0, std::numeric_limits<std::int32_t>::min();
  npy::writeInt32Matrix(path("h.npy"), h);
  ParsedNpy p = parseNpy(readBytes(path("h.npy")));
  EXPECT_NE(p.header.find("'descr': '<i4'"), std::string::npos) << p.header;
  EXPECT_NE(p.header.find("'shape': (2, 3)"), std::string::npos) << p.header;
  EXPECT_EQ(p.data, dataBytes(std::vector<std::int32_t>{1, -2, 3, 400000, 0, std::numeric_limits<std::int32_t>::min()}));

  const std::vector<std::int32_t> v{9, 8, 7, -6, 5, 4, 3};
  npy::writeInt32Vector(path("v.npy"), v);
  p = parseNpy(readBytes(path("v.npy")));
  EXPECT_EQ(p.data_offset % 64, 0u);
  EXPECT_NE(p.header.find("'descr': '<i4'"), std::string::npos) << p.header;
  // A 1-tuple needs its comma: "(7,)" or "(7, )" both read as a tuple in Python, "(7)" would not.
  EXPECT_TRUE(p.header.find("'shape': (7,)") != std::string::npos ||
              p.header.find("'shape': (7, )") != std::string::npos)
      << p.header;
  EXPECT_EQ(p.data, dataBytes(v));
}

TEST_F(Npy, RoundTrips) {
  BOVW_SEEDED_RNG(rng);
  for (auto [rows, cols] : {std::pair{1, 1}, std::pair{0, 64}, std::pair{257, 128}, std::pair{3, 7}}) {
    const Descriptors m = randomMatrix(rng, rows, cols, -1e3f, 1e3f);
    npy::writeFloat32Matrix(path("rt.npy"), m);
    const Descriptors back = npy::readFloat32Matrix(path("rt.npy"));
    ASSERT_EQ(back.rows(), rows);
    ASSERT_EQ(back.cols(), cols);
    EXPECT_TRUE((back.array() == m.array()).all()) << rows << " x " << cols;
  }
  const std::vector<std::int32_t> v{0, 1, -1, 123456789};
  npy::writeInt32Vector(path("v.npy"), v);
  EXPECT_EQ(npy::readInt64Vector(path("v.npy")), std::vector<std::int64_t>(v.begin(), v.end()));
  npy::writeInt32Vector(path("empty.npy"), {});
  EXPECT_TRUE(npy::readInt64Vector(path("empty.npy")).empty());
  // Overwriting an existing file replaces it whole.
  npy::writeFloat32Matrix(path("rt.npy"), Descriptors::Constant(2, 2, 1.5f));
  EXPECT_TRUE((npy::readFloat32Matrix(path("rt.npy")).array() == 1.5f).all());
  EXPECT_EQ(entries(), (std::set<std::string>{"rt.npy", "v.npy", "empty.npy"}));
}

TEST_F(Npy, StreamWritersMatchTheFileWriters) {
  BOVW_SEEDED_RNG(rng);
  const Descriptors m = randomMatrix(rng, 9, 5);
  Histograms h(2, 2);
  h << 1, 2, 3, 4;
  const std::vector<std::int32_t> v{5, 6, 7};
  npy::writeFloat32Matrix(path("m.npy"), m);
  npy::writeInt32Matrix(path("h.npy"), h);
  npy::writeInt32Vector(path("v.npy"), v);
  std::ostringstream ms, hs, vs;
  npy::writeFloat32Matrix(ms, m);
  npy::writeInt32Matrix(hs, h);
  npy::writeInt32Vector(vs, v);
  EXPECT_EQ(ms.str(), readBytes(path("m.npy")));
  EXPECT_EQ(hs.str(), readBytes(path("h.npy")));
  EXPECT_EQ(vs.str(), readBytes(path("v.npy")));
}

// Int32MatrixWriter: blocks of odd heights (and empty ones) appended to a seekable file give the
// bytes writeInt32Matrix writes for the rows together, whatever the reserved maximum; with no rows at
// all, a 0 x K matrix; beyond the maximum or of another width, refused.
TEST_F(Npy, BlockWriterGivesTheBytesOfTheWholeMatrix) {
  BOVW_SEEDED_RNG(rng);
  for (const std::int64_t cols : {1, 7, 1000}) {
    std::vector<Histograms> blocks;
    Eigen::Index total = 0;
    for (int b = 0; b < 6; ++b) {
      const int rows = b == 2 ? 0 : std::uniform_int_distribution<int>(1, 37)(rng);
      Histograms block(rows, cols);
      for (Eigen::Index i = 0; i < block.size(); ++i)
        block.data()[i] = std::uniform_int_distribution<std::int32_t>(-5, 1 << 30)(rng);
      blocks.push_back(block);
      total += rows;
    }
    Histograms whole(total, cols);
    Eigen::Index at = 0;
    for (const Histograms& block : blocks) {
      whole.middleRows(at, block.rows()) = block;
      at += block.rows();
    }
    npy::writeInt32Matrix(path("whole.npy"), whole);
    for (const std::int64_t max_rows : {std::int64_t{total}, std::int64_t{total} + 5, std::int64_t{123456789012}}) {
      StreamedFiles out({path("blocks.npy")});
      npy::Int32MatrixWriter writer(out.stream(0), max_rows, cols);
      for (const Histograms& block : blocks) writer.append(block);
      EXPECT_EQ(writer.rows(), total);
      writer.finish();
      out.commit();
      EXPECT_TRUE(readBytes(path("blocks.npy")) == readBytes(path("whole.npy"))) << cols << " " << max_rows;
    }
  }
  StreamedFiles out({path("none.npy")});
  npy::Int32MatrixWriter none(out.stream(0), 3, 4);
  EXPECT_THROW(none.append(Histograms::Zero(4, 4)), std::invalid_argument);
  EXPECT_THROW(none.append(Histograms::Zero(1, 5)), std::invalid_argument);
  none.finish();
  out.commit();
  npy::writeInt32Matrix(path("empty.npy"), Histograms(0, 4));
  EXPECT_EQ(readBytes(path("none.npy")), readBytes(path("empty.npy")));
}

// --- numpy itself ------------------------------------------------------------------------------------

TEST_F(Npy, InteroperatesWithNumpy) {
  const std::string python = findPythonWithNumpy();
  if (python.empty()) GTEST_SKIP() << "python3 with numpy not available";
  // numpy writes; the library reads and must see the formula's values.
  const std::string script_in = path("write.py");
  writeBytes(script_in,
             "import numpy as np, sys\n"
             "d = sys.argv[1]\n"
             "i = np.arange(12, dtype=np.float32)[:, None]; j = np.arange(7, dtype=np.float32)[None, :]\n"
             "np.save(d + '/f32.npy', (i * 0.25 - j * 3.0 + 0.125).astype(np.float32))\n"
             "np.save(d + '/i64.npy', np.array([0, 5, 5, 1 << 40, -3], dtype=np.int64))\n"
             "np.save(d + '/i32.npy', np.array([4, -4, 2**31 - 1], dtype=np.int32))\n"
             "np.save(d + '/fortran.npy', np.asfortranarray(np.ones((4, 3), dtype=np.float32)))\n"
             "np.save(d + '/big.npy', np.ones((4, 3), dtype='>f4'))\n"
             "np.save(d + '/f64.npy', np.ones((4, 3), dtype=np.float64))\n");
  ASSERT_EQ(std::system((python + " " + script_in + " " + dir_.string()).c_str()), 0);
  const Descriptors m = npy::readFloat32Matrix(path("f32.npy"));
  ASSERT_EQ(m.rows(), 12);
  ASSERT_EQ(m.cols(), 7);
  for (Eigen::Index i = 0; i < 12; ++i)
    for (Eigen::Index j = 0; j < 7; ++j) EXPECT_EQ(m(i, j), f32Value(i, j)) << i << "," << j;
  EXPECT_EQ(npy::readInt64Vector(path("i64.npy")), (std::vector<std::int64_t>{0, 5, 5, std::int64_t{1} << 40, -3}));
  EXPECT_EQ(npy::readInt64Vector(path("i32.npy")), (std::vector<std::int64_t>{4, -4, 2147483647}));
  EXPECT_THROW(npy::readFloat32Matrix(path("fortran.npy")), InvalidInput);
  EXPECT_THROW(npy::readFloat32Matrix(path("big.npy")), InvalidInput);
  EXPECT_THROW(npy::readFloat32Matrix(path("f64.npy")), InvalidInput);

  // The library writes; numpy reads and compares with the same formula.
  Descriptors out(5, 4);
  for (Eigen::Index i = 0; i < 5; ++i)
    for (Eigen::Index j = 0; j < 4; ++j) out(i, j) = f32Value(i, j);
  npy::writeFloat32Matrix(path("out_f32.npy"), out);
  Histograms h(2, 3);
  h << 1, 2, 3, -4, 5, 2147483647;
  npy::writeInt32Matrix(path("out_h.npy"), h);
  npy::writeInt32Vector(path("out_v.npy"), {7, 0, -7});
  const std::string script_out = path("check.py");
  writeBytes(script_out,
             "import numpy as np, sys\n"
             "d = sys.argv[1]\n"
             "a = np.load(d + '/out_f32.npy')\n"
             "i = np.arange(5, dtype=np.float32)[:, None]; j = np.arange(4, dtype=np.float32)[None, :]\n"
             "assert a.dtype == np.float32 and a.shape == (5, 4) and not np.isfortran(a), (a.dtype, a.shape)\n"
             "assert np.array_equal(a, (i * 0.25 - j * 3.0 + 0.125).astype(np.float32)), a\n"
             "h = np.load(d + '/out_h.npy')\n"
             "assert h.dtype == np.int32 and np.array_equal(h, [[1, 2, 3], [-4, 5, 2147483647]]), h\n"
             "v = np.load(d + '/out_v.npy')\n"
             "assert v.dtype == np.int32 and v.shape == (3,) and np.array_equal(v, [7, 0, -7]), v\n");
  EXPECT_EQ(std::system((python + " " + script_out + " " + dir_.string()).c_str()), 0)
      << "numpy disagrees with the library's output (see the assertion above)";
}

// --- Malformed files ---------------------------------------------------------------------------------

// One malformed file per test, so that each failure is reported under its own name.
struct Malformed {
  std::string name;   // a test-name suffix
  std::string bytes;
  bool vector;        // read with readInt64Vector rather than readFloat32Matrix
};

void PrintTo(const Malformed& m, std::ostream* os) { *os << m.name; }

std::vector<Malformed> malformedFiles() {
  const std::string good_data(10 * 64 * 4, '\0');
  const std::string good = npyFile(dict("<f4", "(10, 64)"), good_data);
  std::string bad_magic = good;
  bad_magic[1] = 'X';
  std::string bad_version = good;
  bad_version[6] = 9;
  std::string huge_header_length = good;
  huge_header_length[8] = static_cast<char>(0xff);
  huge_header_length[9] = static_cast<char>(0xff);
  const std::string z16(16, '\0');
  return {
      // Matrices (issue 2: bad magic, wrong dtype, Fortran order, header lies about the size).
      {"EmptyFile", "", false},
      {"BadMagic", bad_magic, false},
      {"MagicOnly", "\x93NUMPY", false},
      {"UnsupportedVersion", bad_version, false},
      {"HeaderCutShort", good.substr(0, 40), false},
      {"HeaderLengthBeyondTheFile", huge_header_length, false},
      {"DataCutShort", good.substr(0, good.size() - 4), false},
      {"NoDataAtAll", npyFile(dict("<f4", "(10, 64)"), ""), false},
      {"ExtraBytesAfterTheData", good + "x", false},
      {"Float64", npyFile(dict("<f8", "(10, 64)"), std::string(10 * 64 * 8, '\0')), false},
      {"Int32ForAFloatMatrix", npyFile(dict("<i4", "(10, 64)"), good_data), false},
      {"BigEndianFloat32", npyFile(dict(">f4", "(10, 64)"), good_data), false},
      {"FortranOrder", npyFile(dict("<f4", "(10, 64)", true), good_data), false},
      {"OneDimensionalFloatArray", npyFile(dict("<f4", "(640,)"), good_data), false},
      {"ThreeDimensionalFloatArray", npyFile(dict("<f4", "(2, 5, 64)"), good_data), false},
      {"Scalar", npyFile(dict("<f4", "()"), std::string(4, '\0')), false},
      {"NoDescr", npyFile("{'fortran_order': False, 'shape': (10, 64), }", good_data), false},
      {"NoShape", npyFile("{'descr': '<f4', 'fortran_order': False, }", good_data), false},
      {"NoFortranOrder", npyFile("{'descr': '<f4', 'shape': (10, 64), }", good_data), false},
      {"DtypeWithoutSize", npyFile(dict("<f", "(10, 64)"), good_data), false},
      // Header numbers that do not parse or overflow.
      {"UnparseableDtypeSize", npyFile(dict("<fx", "(10, 64)"), good_data), false},
      {"NegativeDimension", npyFile(dict("<f4", "(-1, 64)"), std::string(64 * 4, '\0')), false},
      {"DimensionBeyondInt64", npyFile(dict("<f4", "(99999999999999999999, 64)"), good_data), false},
      {"ElementCountOverflows", npyFile(dict("<f4", "(4611686018427387904, 4611686018427387904)"), good_data), false},
      // 2^62 elements x 4 bytes wraps to 0 in 64 bits: a header that claims a huge array in an empty file.
      {"ByteCountOverflows", npyFile(dict("<f4", "(4611686018427387904, 1)"), ""), false},
      // Offsets vectors.
      {"VectorFloat32", npyFile(dict("<f4", "(4,)"), z16), true},
      {"Vector2DInt64", npyFile(dict("<i8", "(2, 2)"), std::string(32, '\0')), true},
      {"VectorBigEndianInt64", npyFile(dict(">i8", "(2,)"), z16), true},
      {"VectorUint64", npyFile(dict("<u8", "(2,)"), z16), true},
      {"VectorInt16", npyFile(dict("<i2", "(2,)"), std::string(4, '\0')), true},
      {"VectorDataCutShort", npyFile(dict("<i8", "(3,)"), std::string(20, '\0')), true},
      {"VectorFortranOrder", npyFile(dict("<i8", "(2,)", true), z16), true},
      {"VectorBadMagic", "\x93NUMPX" + npyFile(dict("<i8", "(2,)"), z16).substr(6), true},
      {"VectorByteCountOverflows", npyFile(dict("<i8", "(2305843009213693952,)"), ""), true},
  };
}

class NpyMalformed : public ScratchDirTest, public testing::WithParamInterface<Malformed> {};

TEST_P(NpyMalformed, IsInvalidInputNamingThePath) {
  const Malformed& m = GetParam();
  const std::string file = path(m.name + ".npy");
  writeBytes(file, m.bytes);
  try {
    if (m.vector) {
      const auto v = npy::readInt64Vector(file);
      ADD_FAILURE() << "accepted as a vector of " << v.size();
    } else {
      const Descriptors d = npy::readFloat32Matrix(file);
      ADD_FAILURE() << "accepted as a " << d.rows() << " x " << d.cols() << " matrix";
    }
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find(file), std::string::npos) << e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "threw " << typeid(e).name() << " instead of bovw::InvalidInput: " << e.what();
  }
}

// The two-step reader checks as strictly: its header step alone refuses every malformed matrix
// file (the data size included), and so does reading into memory of the header's claimed shape.
class NpyMalformedMatrix : public NpyMalformed {};

std::vector<Malformed> malformedMatrixFiles() {
  std::vector<Malformed> matrices;
  for (const Malformed& m : malformedFiles())
    if (!m.vector) matrices.push_back(m);
  return matrices;
}

TEST_P(NpyMalformedMatrix, IsRefusedByTheTwoStepReader) {
  const Malformed& m = GetParam();
  const std::string file = path(m.name + ".npy");
  writeBytes(file, m.bytes);
  try {
    const npy::MatrixShape shape = npy::readFloat32MatrixShape(file);
    ADD_FAILURE() << "header accepted as a " << shape.rows << " x " << shape.cols << " matrix";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find(file), std::string::npos) << e.what();
  }
  Descriptors out = Descriptors::Zero(10, 64);
  EXPECT_THROW(npy::readFloat32MatrixInto(file, out), InvalidInput);
}

INSTANTIATE_TEST_SUITE_P(Files, NpyMalformed, testing::ValuesIn(malformedFiles()),
                         [](const auto& info) { return info.param.name; });
INSTANTIATE_TEST_SUITE_P(Files, NpyMalformedMatrix, testing::ValuesIn(malformedMatrixFiles()),
                         [](const auto& info) { return info.param.name; });

// --- The header's dict, against numpy's own reader ---------------------------------------------------

// A header and whether numpy and bovw read it (all describe 3 x 4 float32 with 48 data bytes).
struct HeaderCase {
  std::string name;
  std::string dict;
  int major;
  bool numpy_reads;
  bool bovw_reads;
};

std::vector<HeaderCase> headerCases() {
  const std::string keys = "'fortran_order': False, 'shape': (3, 4)";
  return {
      // What numpy and other writers produce, in their spacing variants: read by both.
      {"NumpyStyle", "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }", 1, true, true},
      {"Version2", "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }", 2, true, true},
      {"Version3", "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }", 3, true, true},
      {"DoubleQuotes", "{\"descr\": \"<f4\", \"fortran_order\": False, \"shape\": (3, 4)}", 1, true, true},
      {"NoSpaces", "{'descr':'<f4','fortran_order':False,'shape':(3,4)}", 1, true, true},
      {"KeysReordered", "{'shape': (3, 4), 'fortran_order': False, 'descr': '<f4'}", 1, true, true},
      {"LineBreaksInside", "{'descr': '<f4',\n 'fortran_order': False,\n 'shape': (3, 4)}", 1, true, true},
      {"TrailingCommaInShape", "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4,), }", 1, true, true},
      {"LeadingSpace", " {'descr': '<f4', " + keys + "}", 1, true, true},
      {"Python2Longs", "{'descr': '<f4', 'fortran_order': False, 'shape': (3L, 4L), }", 1, true, true},
      // Refused by both.
      {"Python2LongsInVersion3", "{'descr': '<f4', 'fortran_order': False, 'shape': (3L, 4L), }", 3, false, false},
      {"EmptyDict", "{}", 1, false, false},
      {"NotADict", "('<f4', False, (3, 4))", 1, false, false},
      {"MissingDescr", "{" + keys + "}", 1, false, false},
      {"MissingFortranOrder", "{'descr': '<f4', 'shape': (3, 4)}", 1, false, false},
      {"MissingShape", "{'descr': '<f4', 'fortran_order': False}", 1, false, false},
      {"ExtraKey", "{'descr': '<f4', " + keys + ", 'version': 1}", 1, false, false},
      {"MissingComma", "{'descr': '<f4' 'fortran_order': False, 'shape': (3, 4)}", 1, false, false},
      {"MissingColon", "{'descr' '<f4', " + keys + "}", 1, false, false},
      {"UnclosedDict", "{'descr': '<f4', " + keys, 1, false, false},
      {"UnterminatedString", "{'descr: '<f4', " + keys + "}", 1, false, false},
      {"TextAfterTheDict", "{'descr': '<f4', " + keys + "} x", 1, false, false},
      {"UnquotedKey", "{descr: '<f4', " + keys + "}", 1, false, false},
      {"FortranOrderAsInteger", "{'descr': '<f4', 'fortran_order': 0, 'shape': (3, 4)}", 1, false, false},
      {"FortranOrderAsString", "{'descr': '<f4', 'fortran_order': 'False', 'shape': (3, 4)}", 1, false, false},
      {"ShapeAsList", "{'descr': '<f4', 'fortran_order': False, 'shape': [3, 4]}", 1, false, false},
      {"ShapeAsInteger", "{'descr': '<f4', 'fortran_order': False, 'shape': (12)}", 1, false, false},
      {"ShapeAsString", "{'descr': '<f4', 'fortran_order': False, 'shape': '3, 4'}", 1, false, false},
      {"ShapeWithAFloat", "{'descr': '<f4', 'fortran_order': False, 'shape': (3.0, 4)}", 1, false, false},
      {"DescrAsInteger", "{'descr': 4, " + keys + "}", 1, false, false},
      {"HeaderLongerThanNumpyReads", "{'descr': '<f4', " + keys + "}" + std::string(10000, ' '), 1, false, false},
      // numpy reads these, bovw refuses: two values for one key (numpy keeps the last: int32 here,
      // where a pattern match took float32), and Python syntax no writer produces.
      {"DuplicateDescr", "{'descr': '<f4', 'descr': '<i4', " + keys + "}", 1, true, false},
      {"Comment", "{'descr': '<f4', # float32\n " + keys + "}", 1, true, false},
  };
}

TEST_F(Npy, HeadersAreReadOnlyWhereNumpyReadsThem) {
  const std::string data(3 * 4 * 4, '\0');
  std::string listing;
  for (const HeaderCase& c : headerCases()) {
    SCOPED_TRACE(c.name);
    const std::string file = path(c.name + ".npy");
    writeBytes(file, npyFile(c.dict, data, c.major));
    listing += c.name + (c.numpy_reads ? " read\n" : " refused\n");
    try {
      const Descriptors m = npy::readFloat32Matrix(file);
      EXPECT_TRUE(c.bovw_reads) << "read a header numpy or bovw should refuse";
      EXPECT_EQ(m.rows(), 3);
      EXPECT_EQ(m.cols(), 4);
    } catch (const InvalidInput& e) {
      EXPECT_FALSE(c.bovw_reads) << e.what();
      EXPECT_NE(std::string(e.what()).find(file), std::string::npos) << e.what();
    }
  }
  // A minor version numpy does not write is refused by both too.
  std::string minor = npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }", data);
  minor[7] = 1;
  writeBytes(path("MinorVersion.npy"), minor);
  listing += "MinorVersion refused\n";
  EXPECT_THROW(npy::readFloat32Matrix(path("MinorVersion.npy")), InvalidInput);

  // numpy's verdicts, from numpy itself.
  const std::string python = findPythonWithNumpy();
  if (python.empty()) GTEST_SKIP() << "python3 with numpy not available: numpy's verdicts not checked";
  writeBytes(path("expected.txt"), listing);
  writeBytes(path("check.py"),
             "import numpy as np, sys\n"
             "d = sys.argv[1]\n"
             "wrong = []\n"
             "for line in open(d + '/expected.txt'):\n"
             "    name, verdict = line.split()\n"
             "    try:\n"
             "        np.load(d + '/' + name + '.npy'); got = 'read'\n"
             "    except Exception:\n"
             "        got = 'refused'\n"
             "    if got != verdict: wrong.append(name + ': numpy ' + got)\n"
             "if wrong: print('\\n'.join(wrong))\n"
             "sys.exit(1 if wrong else 0)\n");
  EXPECT_EQ(std::system((python + " " + path("check.py") + " " + dir_.string()).c_str()), 0)
      << "numpy's verdict differs from the table (printed above)";
}

TEST_F(Npy, MissingFileIsAnIoErrorNamingThePath) {
  const std::string file = path("does-not-exist.npy");
  try {
    npy::readFloat32Matrix(file);
    ADD_FAILURE() << "no exception";
  } catch (const IoError& e) {
    EXPECT_NE(std::string(e.what()).find(file), std::string::npos) << e.what();
  }
  EXPECT_THROW(npy::readInt64Vector(file), IoError);
  EXPECT_THROW(npy::readFloat32MatrixShape(file), IoError);
  Descriptors out(2, 2);
  EXPECT_THROW(npy::readFloat32MatrixInto(file, out), IoError);
  // A directory is not a file either.
  EXPECT_THROW(npy::readFloat32Matrix(dir_.string()), IoError);
}

TEST_F(Npy, WritingIntoAMissingDirectoryIsAnIoErrorAndLeavesNothing) {
  const std::string file = path("no-such-dir/out.npy");
  try {
    npy::writeFloat32Matrix(file, Descriptors::Zero(2, 2));
    ADD_FAILURE() << "no exception";
  } catch (const IoError& e) {
    EXPECT_NE(std::string(e.what()).find(file), std::string::npos) << e.what();
  }
  EXPECT_TRUE(entries().empty());
}

}  // namespace
}  // namespace bovw::test
