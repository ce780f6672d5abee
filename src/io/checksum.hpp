// The 64-bit checksum that closes every binary file bovw writes (docs/FORMATS.md): detects
// truncation and accidental corruption (not tampering). Fed in any pieces; the result depends only
// on the bytes, not on how they were split.
#pragma once

#include "io/byte_order.hpp"

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace bovw::detail {

class Checksum64 {
 public:
  void update(const void* data, std::size_t size) {
    const auto* bytes = static_cast<const unsigned char*>(data);
    length_ += size;
    while (size > 0 && pending_size_ != 0) {
      pending_[pending_size_++] = *bytes++;
      --size;
      if (pending_size_ == 8) {
        mix(load(pending_));
        pending_size_ = 0;
      }
    }
    for (; size >= 8; size -= 8, bytes += 8) mix(load(bytes));
    // Fewer than 8 bytes left, and nothing pending if any are (the first loop emptied it). Nothing to
    // copy may come with a null pointer (an empty record), which memcpy must not be given.
    if (size == 0) return;
    std::memcpy(pending_ + pending_size_, bytes, size);
    pending_size_ += size;
  }

  std::uint64_t length() const { return length_; }  // bytes fed so far

  std::uint64_t digest() const {
    Checksum64 copy = *this;
    if (copy.pending_size_ != 0) {
      for (std::size_t i = copy.pending_size_; i < 8; ++i) copy.pending_[i] = 0;
      copy.mix(load(copy.pending_));
    }
    copy.mix(length_);
    std::uint64_t h = copy.state_;  // splitmix64's finaliser: every input bit reaches every output bit
    h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
    h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
    return h ^ (h >> 31);
  }

 private:
  // Little-endian whatever the host, so a file's checksum is the same everywhere.
  static std::uint64_t load(const unsigned char* p) { return decodeLittleEndian<std::uint64_t>(p); }
  // Each step is a bijection of the state for a fixed word and of the word for a fixed state, so
  // a change confined to one 8-byte word always changes the digest.
  void mix(std::uint64_t word) {
    state_ ^= word;
    state_ *= 0x9e3779b97f4a7c15ull;
    state_ ^= state_ >> 29;
  }

  std::uint64_t state_ = 0x243f6a8885a308d3ull;
  std::uint64_t length_ = 0;
  unsigned char pending_[8] = {};
  std::size_t pending_size_ = 0;
};

}  // namespace bovw::detail
