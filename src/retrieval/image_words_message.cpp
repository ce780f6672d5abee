// An image's words and keypoints as fields of a rank message (retrieval/image_words_message.hpp).
#include "retrieval/image_words_message.hpp"

namespace bovw::detail {

void writeImageWords(ByteWriter& out, const ImageWords& words) {
  out.i32(words.image_size.width);
  out.i32(words.image_size.height);
  out.u64(words.points.size());
  for (const cv::Point2f& p : words.points) {
    out.number(p.x);
    out.number(p.y);
  }
  out.u64(words.words.size());
  out.array(words.words.data(), words.words.size());
  out.u64(words.signatures.size());
  out.array(words.signatures.data(), words.signatures.size());
  out.u64(words.sizes.size());
  out.array(words.sizes.data(), words.sizes.size());
  out.u64(words.angles.size());
  out.array(words.angles.data(), words.angles.size());
}

ImageWords readImageWords(ByteReader& in) {
  ImageWords words;
  words.image_size.width = in.i32("the image width");
  words.image_size.height = in.i32("the image height");
  words.points.resize(readCount(in, 2 * sizeof(float), "the keypoint count"));
  for (cv::Point2f& p : words.points) {
    p.x = in.number<float>("a keypoint");
    p.y = in.number<float>("a keypoint");
  }
  words.words.resize(readCount(in, sizeof(std::int32_t), "the word count"));
  in.array(words.words.data(), words.words.size(), "the words");
  words.signatures.resize(readCount(in, sizeof(std::uint64_t), "the signature count"));
  in.array(words.signatures.data(), words.signatures.size(), "the signatures");
  words.sizes.resize(readCount(in, sizeof(float), "the keypoint size count"));
  in.array(words.sizes.data(), words.sizes.size(), "the keypoint sizes");
  words.angles.resize(readCount(in, sizeof(float), "the keypoint angle count"));
  in.array(words.angles.data(), words.angles.size(), "the keypoint angles");
  return words;
}

}  // namespace bovw::detail
