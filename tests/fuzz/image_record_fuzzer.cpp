// libFuzzer harness: a live database's image record (src/live/image_record.cpp), what every open
// and refresh decodes. Each input is tried as it is and with its closing checksum rewritten to
// match, so that mutations reach the field checks behind it. An accepted record must encode back
// to the same bytes (one encoding per record) and hold words ascending below K.
#include "fuzz/fuzz_support.hpp"
#include "support/resealing.hpp"

#include "live/image_record.hpp"

#include <string>
#include <vector>

using namespace bovw;

namespace {

constexpr int kWords = 70000;  // above 2^16, so that three-byte word gaps are reachable

void check(const std::vector<char>& bytes) {
  live_detail::ImageRecord record;
  const std::string_view view(bytes.data(), bytes.size());
  if (!fuzz::acceptsOrRefuses([&] { record = live_detail::decodeRecord(view, kWords, "memory (image 0)"); })) return;
  fuzz::require(live_detail::encodeRecord(record) == std::string(bytes.begin(), bytes.end()), "an accepted record round-trips");
  for (std::size_t i = 0; i < record.words.size(); ++i)
    fuzz::require(record.words[i].word < kWords && record.words[i].count >= 1 &&
                      (i == 0 || record.words[i].word > record.words[i - 1].word),
                  "an accepted record's words ascend below K with positive counts");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return fuzz::checkAsIsAndResealed(data, size, check, [](const std::vector<char>& bytes) { return test::resealed(bytes); });
}
