// An image's words, keypoints (with their sizes and angles) and signatures (bovw/image_words.hpp) as
// fields of a rank message (distributed/rank_message.hpp): a query's words that sharded search
// broadcasts, and the indexed images' words that distributed indexing gathers.
#pragma once

#include "distributed/rank_message.hpp"

#include <bovw/image_words.hpp>

namespace bovw::detail {

void writeImageWords(ByteWriter& out, const ImageWords& words);
// Every count checked against the bytes left before anything is allocated for it.
ImageWords readImageWords(ByteReader& in);

}  // namespace bovw::detail
