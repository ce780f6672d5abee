// The header of a numpy .npy file: a Python dict literal such as
//   {'descr': '<f4', 'fortran_order': False, 'shape': (1000, 64), }
// read by a small parser of that literal, not by pattern matching, so that bovw accepts no header
// that numpy refuses (numpy.lib.format._read_array_header: ast.literal_eval, then exactly the keys
// 'descr', 'fortran_order' and 'shape', a str, a bool and a tuple of ints).
//
// Stricter than numpy where numpy's answer is a guess or nobody writes it: a key given twice
// (numpy keeps the last silently) is refused, and of Python's literal syntax only what numpy and
// other writers produce is read: single- or double-quoted strings without escapes, True/False,
// decimal integers (with Python 2's 'L' suffix in format 1.0 and 2.0 headers, as numpy filters it),
// tuples, spaces, tabs and line breaks between tokens, trailing padding. No comments, no
// continuation lines, no nested containers in the values bovw reads.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace bovw::detail {

struct NpyHeader {
  std::string descr;                // the dtype string, e.g. "<f4"
  bool fortran_order = false;
  std::vector<std::int64_t> shape;  // non-negative extents
};

// The largest header numpy reads by default (its max_header_size): larger ones are refused too.
inline constexpr std::size_t kMaxNpyHeaderSize = 10000;

// Parses `text`, the header's bytes after the length field (padding and final newline included),
// of a file in format version `major` (1, 2 or 3). Throws InvalidInput naming `path`.
NpyHeader parseNpyHeader(const std::string& text, int major, const std::string& path);

}  // namespace bovw::detail
