// The turn OpenCV gives a JPEG with an Exif orientation, for decodeJpegGray (jpeg_data.cpp), which
// reads the pixels itself. OpenCV 4.6 reads the first APP1 segment as Exif, whatever it holds, with
// a reader of its own, and turns the decoded image by the orientation it finds there; rather than a
// second Exif reader that would have to agree with it on every odd file, OpenCV itself is asked: a
// 16 x 16 probe image carrying the same segment is decoded by cv::imdecode, and the turn that its
// pixels show is applied.
#pragma once

#include <opencv2/core.hpp>

#include <vector>

namespace bovw::detail {

// `gray` turned as cv::imdecode turns an image whose first APP1 segment's body is `app1` (into memory
// of gray's allocator). False, with `gray` as it was, when the probe shows no turn of the eight.
bool turnAsOpenCV(const std::vector<unsigned char>& app1, cv::Mat& gray);

}  // namespace bovw::detail
