// One array of a posting list (its ids or its counts): its own, or borrowed read-only from bytes
// that outlive the list: a live database's checkpoint where LMDB maps it (live/checkpoint.cpp), so
// that an open reads the lists in place instead of copying gigabytes into fresh memory (issue 21).
// Reading is the same either way; the first change of a borrowed array copies it into memory of its
// own (copy on write), and the bytes it borrowed are no longer read.
//
// 16 bytes, not a std::vector (24) plus a borrowed view (16): an index holds a list per word, empty
// ones included, and a vocabulary may have 2^24 words, so the array's size is most of an empty
// list's (a PostingList is two of these and two pointers, 48 bytes: 0.8 GB at 2^24 words, where
// vector and view made 1.6 GB out of an index file of 200 bytes). Its elements are trivially
// copyable (ids, counts), moved with memcpy and realloc.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <stdexcept>
#include <type_traits>
#include <utility>

namespace bovw::index_detail {

template <typename T>
class ListArray {
  static_assert(std::is_trivially_copyable_v<T>, "ListArray moves its elements with memcpy");

 public:
  // Elements at most: an image id's range (index_data.hpp's kMaxIds), which a dense list spans.
  static constexpr std::size_t kMaxSize = std::numeric_limits<std::uint32_t>::max();

  ListArray() noexcept = default;
  // A copy of a borrowed array borrows the same bytes.
  ListArray(const ListArray& other) : size_(other.size_) {
    if (size_ == 0) return;
    if (other.borrowed()) {
      data_ = other.data_;
      return;
    }
    data_ = allocate(size_);
    capacity_ = size_;
    std::memcpy(data_, other.data_, std::size_t{size_} * sizeof(T));
  }
  ListArray(ListArray&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)),
        size_(std::exchange(other.size_, 0)),
        capacity_(std::exchange(other.capacity_, 0)) {}
  ListArray& operator=(ListArray other) noexcept {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
    std::swap(capacity_, other.capacity_);
    return *this;
  }
  ~ListArray() {
    if (!borrowed()) std::free(data_);
  }

  const T* data() const { return data_; }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const T& operator[](std::size_t i) const { return data_[i]; }
  const T& back() const { return data_[size_ - 1]; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }

  // An owned array always has capacity for its elements; a borrowed one has none.
  bool borrowed() const { return capacity_ == 0 && data_ != nullptr; }
  // Room for more elements without a copy: 0 while borrowed (the first change copies).
  std::size_t spare() const { return borrowed() ? 0 : capacity_ - size_; }
  // Bytes held on the heap (capacity, not size): none while borrowed.
  std::size_t heapBytes() const { return borrowed() ? 0 : std::size_t{capacity_} * sizeof(T); }
  // Bytes of the elements it borrows (memory it reads, not its own): none when it owns them.
  std::size_t borrowedBytes() const { return borrowed() ? std::size_t{size_} * sizeof(T) : 0; }

  // The changes. Each copies a borrowed array first; where memory runs out they throw
  // std::bad_alloc and leave the array as it was.

  // The elements to write in place (a borrowed array is copied first, with room for `room` more).
  T* writable(std::size_t room = 0) {
    if (borrowed()) reallocate(size_ + room);
    return data_;
  }
  // Room for `n` elements in all.
  void reserve(std::size_t n) {
    if (n > kMaxSize) throw std::length_error("a posting list array of more than 2^32 - 1 elements");
    if (borrowed() || n > capacity_) reallocate(std::max<std::size_t>(n, size_));
  }
  void push_back(T value) {
    if (size_ >= capacity_) reserve(grown(size_ + 1));
    data_[size_++] = value;
  }
  void append(const T* first, const T* last) {
    const auto n = static_cast<std::size_t>(last - first);
    if (n == 0) return;
    if (size_ + n > capacity_) reserve(grown(size_ + n));
    std::memcpy(data_ + size_, first, n * sizeof(T));
    size_ += static_cast<std::uint32_t>(n);
  }
  // `n` elements: the first ones kept, new ones `value`.
  void resize(std::size_t n, T value = T{}) {
    reserve(n);
    for (std::size_t i = size_; i < n; ++i) data_[i] = value;
    size_ = static_cast<std::uint32_t>(n);
  }
  // `n` elements: the first ones kept, the new ones left unset for the caller to write, where
  // resize() would write every new one twice (the copies of a live database's open: gigabytes).
  void resizeForOverwrite(std::size_t n) {
    reserve(n);
    size_ = static_cast<std::uint32_t>(n);
  }
  void assign(std::size_t n, T value) {
    reserve(n);
    for (std::size_t i = 0; i < n; ++i) data_[i] = value;
    size_ = static_cast<std::uint32_t>(n);
  }
  void erase(std::size_t at) {
    writable();
    std::memmove(data_ + at, data_ + at + 1, (size_ - at - 1) * sizeof(T));
    --size_;
  }
  // Gives back the capacity beyond the elements (nothing while borrowed; kept where realloc fails).
  void shrinkToFit() noexcept {
    if (borrowed() || capacity_ == size_) return;
    if (size_ == 0) {
      std::free(data_);
      data_ = nullptr;
      capacity_ = 0;
      return;
    }
    if (void* smaller = std::realloc(data_, std::size_t{size_} * sizeof(T))) {
      data_ = static_cast<T*>(smaller);
      capacity_ = size_;
    }
  }
  // Reads the `n` elements at `values` from now on, which must stay valid and unchanged while the
  // array borrows them (nothing writes through them: every change copies first); what it owned is
  // given back.
  void borrow(const T* values, std::size_t n) {
    if (n > kMaxSize) throw std::length_error("a posting list array of more than 2^32 - 1 elements");
    *this = ListArray();
    if (n == 0) return;
    data_ = const_cast<T*>(values);
    size_ = static_cast<std::uint32_t>(n);
  }

 private:
  static T* allocate(std::size_t n) {
    void* memory = std::malloc(n * sizeof(T));
    if (memory == nullptr) throw std::bad_alloc();
    return static_cast<T*>(memory);
  }
  // Growth by half (not doubling): a list grown by appends stays within 1.5x its size. Trimmed to
  // kMaxSize where `needed` is within it (reserve refuses more).
  static std::size_t grown(std::size_t needed) {
    return needed > kMaxSize ? needed : std::min(kMaxSize, needed + needed / 2);
  }
  // Owned memory for `capacity` >= size() elements, the elements kept (copied out of borrowed bytes).
  void reallocate(std::size_t capacity) {
    if (capacity == 0) return;  // an owned empty array: nothing to hold
    T* memory;
    if (borrowed()) {
      memory = allocate(capacity);
      std::memcpy(memory, data_, std::size_t{size_} * sizeof(T));
    } else {
      void* moved = std::realloc(data_, capacity * sizeof(T));
      if (moved == nullptr) throw std::bad_alloc();
      memory = static_cast<T*>(moved);
    }
    data_ = memory;
    capacity_ = static_cast<std::uint32_t>(capacity);
  }

  T* data_ = nullptr;           // owned memory, or borrowed bytes (never written through)
  std::uint32_t size_ = 0;
  std::uint32_t capacity_ = 0;  // 0 with data_ set: borrowed
};

}  // namespace bovw::index_detail
