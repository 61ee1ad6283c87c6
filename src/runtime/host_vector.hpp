// A std::vector whose resize() leaves new elements of trivial types uninitialized: for the large
// plan arrays analyze fills in parallel (runtime/parallel.hpp), where a zeroing resize would be a
// serial pass over hundreds of megabytes before the parallel one writes every element anyway.
#pragma once

#include <algorithm>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace spx {

/// std::allocator, except that construct() without arguments default-initializes.
template <class T>
struct DefaultInitAllocator : std::allocator<T> {
  using std::allocator<T>::allocator;
  DefaultInitAllocator() = default;
  template <class U>
  DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}
  template <class U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible<U>::value) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

/// A vector whose every element the caller writes after resize().
template <class T>
using HostVector = std::vector<T, DefaultInitAllocator<T>>;

/// Element-wise comparison with a plain vector (tests compare plan arrays with expected ones).
template <class T>
bool operator==(const HostVector<T>& a, const std::vector<T>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end());
}
template <class T>
bool operator==(const std::vector<T>& a, const HostVector<T>& b) {
  return b == a;
}
template <class T>
bool operator!=(const HostVector<T>& a, const std::vector<T>& b) {
  return !(a == b);
}
template <class T>
bool operator!=(const std::vector<T>& a, const HostVector<T>& b) {
  return !(b == a);
}

}  // namespace spx
