// One array of a posting list (its ids or its counts): its own, in a vector, or borrowed read-only
// from bytes that outlive the list: a live database's checkpoint where LMDB maps it
// (live/checkpoint.cpp), so that an open reads the lists in place instead of copying gigabytes into
// fresh memory (issue 21). Reading is the same either way; the first change of a borrowed array
// copies it into a vector of its own (copy on write), and the bytes it borrowed are no longer read.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace bovw::index_detail {

template <typename T>
class ListArray {
 public:
  ListArray() = default;
  explicit ListArray(std::vector<T> owned) : owned_(std::move(owned)) {}

  const T* data() const { return borrowed_ ? borrowed_ : owned_.data(); }
  std::size_t size() const { return borrowed_ ? borrowed_size_ : owned_.size(); }
  bool empty() const { return size() == 0; }
  const T& operator[](std::size_t i) const { return data()[i]; }
  const T& back() const { return data()[size() - 1]; }
  const T* begin() const { return data(); }
  const T* end() const { return data() + size(); }

  bool borrowed() const { return borrowed_ != nullptr; }
  // Room for more elements without a copy: 0 while borrowed (the first change copies).
  std::size_t spare() const { return borrowed_ ? 0 : owned_.capacity() - owned_.size(); }
  // Bytes held on the heap (capacity, not size): none while borrowed.
  std::size_t heapBytes() const { return owned_.capacity() * sizeof(T); }

  // The array's own vector, for a change: a borrowed array is copied into it first, with room for
  // `room` more elements.
  std::vector<T>& own(std::size_t room = 0) {
    if (borrowed_) {
      std::vector<T> copy;
      copy.reserve(borrowed_size_ + room);
      copy.assign(borrowed_, borrowed_ + borrowed_size_);
      owned_.swap(copy);
      borrowed_ = nullptr;
      borrowed_size_ = 0;
    }
    return owned_;
  }
  // Gives back the capacity beyond the elements (where the allocator can; nothing while borrowed).
  void shrinkToFit() {
    if (!borrowed_) owned_.shrink_to_fit();
  }
  // Reads the `n` elements at `values` from now on, which must stay valid and unchanged while the
  // array borrows them; what it owned is given back.
  void borrow(const T* values, std::size_t n) {
    std::vector<T>().swap(owned_);
    borrowed_ = n > 0 ? values : nullptr;
    borrowed_size_ = n > 0 ? n : 0;
  }

 private:
  std::vector<T> owned_;
  const T* borrowed_ = nullptr;  // null while the array owns its elements
  std::size_t borrowed_size_ = 0;
};

}  // namespace bovw::index_detail
