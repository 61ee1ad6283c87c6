#include "runtime/pointers.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>

namespace spx::device {
namespace {

/// The last pointers this thread looked up, but pinned ones (a small ring; no locking needed).
struct KindCache {
  static constexpr int kSize = 16;
  const void* ptr[kSize] = {};
  MemoryKind kind[kSize] = {};
  int next = 0;

  bool find(const void* p, MemoryKind* k) const {
    for (int i = 0; i < kSize; ++i)
      if (ptr[i] == p) {
        *k = kind[i];
        return true;
      }
    return false;
  }
  void remember(const void* p, MemoryKind k) {
    ptr[next] = p;
    kind[next] = k;
    next = (next + 1) % kSize;
  }
};

thread_local KindCache cache;

}  // namespace

MemoryKind memory_kind(const void* p) {
  MemoryKind k = MemoryKind::Host;
  if (p != nullptr && cache.find(p, &k)) return k;
  cudaPointerAttributes attr{};
  if (cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
    cudaGetLastError();  // an unknown pointer: host memory as far as the driver knows
    return MemoryKind::Host;
  }
  switch (attr.type) {
    case cudaMemoryTypeDevice: k = MemoryKind::Device; break;
    case cudaMemoryTypeManaged: k = MemoryKind::Managed; break;
    case cudaMemoryTypeHost: k = MemoryKind::Pinned; break;
    default: k = MemoryKind::Host; break;
  }
  // Pinned host memory is looked up every time: once freed, its addresses may come back as plain
  // host memory, which a cached "pinned" would let a kernel read.
  if (p != nullptr && k != MemoryKind::Pinned) cache.remember(p, k);
  return k;
}

const char* kind_name(MemoryKind k) {
  switch (k) {
    case MemoryKind::Device: return "device memory";
    case MemoryKind::Managed: return "managed memory";
    case MemoryKind::Pinned: return "pinned host memory";
    case MemoryKind::Host: return "host memory";
  }
  return "?";
}

}  // namespace spx::device
