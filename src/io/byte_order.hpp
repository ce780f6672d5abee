// Little-endian encoding of integers, IEEE floats and arrays of them, whatever the host's byte
// order: every binary file bovw writes is little-endian (docs/FORMATS.md). On a little-endian host
// the array conversions are no-ops, so large arrays still go straight between disk and memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace bovw::detail {

#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__)
inline constexpr bool kHostIsLittleEndian = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;
#else
#error "cannot tell the host's byte order"
#endif

// The unsigned integer of T's size: the bits a value of T is stored as.
template <typename T>
using BitsOf = std::conditional_t<sizeof(T) == 8, std::uint64_t,
                                  std::conditional_t<sizeof(T) == 4, std::uint32_t,
                                                     std::conditional_t<sizeof(T) == 2, std::uint16_t, std::uint8_t>>>;

template <typename T>
void encodeLittleEndian(T value, unsigned char* out) {
  static_assert(std::is_arithmetic_v<T>, "numbers only");
  BitsOf<T> bits;
  std::memcpy(&bits, &value, sizeof(T));
  for (std::size_t i = 0; i < sizeof(T); ++i) out[i] = static_cast<unsigned char>((bits >> (8 * i)) & 0xff);
}

template <typename T>
T decodeLittleEndian(const unsigned char* in) {
  static_assert(std::is_arithmetic_v<T>, "numbers only");
  BitsOf<T> bits = 0;
  for (std::size_t i = sizeof(T); i-- > 0;) bits = static_cast<BitsOf<T>>((bits << 8) | in[i]);
  T value;
  std::memcpy(&value, &bits, sizeof(T));
  return value;
}

// Converts `count` values in place between the host's order and little-endian (the same swap
// both ways); nothing to do on a little-endian host.
template <typename T>
void swapToOrFromLittleEndian(T* values, std::size_t count) {
  if constexpr (!kHostIsLittleEndian && sizeof(T) > 1) {
    auto* bytes = reinterpret_cast<unsigned char*>(values);
    for (std::size_t v = 0; v < count; ++v, bytes += sizeof(T))
      for (std::size_t i = 0; i < sizeof(T) / 2; ++i) std::swap(bytes[i], bytes[sizeof(T) - 1 - i]);
  } else {
    (void)values, (void)count;
  }
}

}  // namespace bovw::detail
