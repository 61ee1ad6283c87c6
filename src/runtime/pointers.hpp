// What kind of memory a pointer is, for the execute-time checks that keep a host pointer out of a
// kernel (a device fault poisons the whole process's CUDA context) and a device pointer out of a
// host read (a segmentation fault).
#pragma once

namespace spx::device {

enum class MemoryKind {
  Device,   ///< cudaMalloc'd: kernels read it, the host must not
  Managed,  ///< cudaMallocManaged: both may
  Pinned,   ///< page-locked host memory (cudaMallocHost / cudaHostRegister): both may
  Host,     ///< ordinary host memory: the host only
};

/// The kind of memory `p` points into. Verdicts are remembered per thread for the last few
/// pointers, so repeated calls with the same buffers cost no driver call. Device and managed
/// allocations live in address ranges the host allocator never hands out, so those verdicts
/// cannot go stale; a remembered "host" can only turn out stricter than needed (host memory
/// registered later); pinned memory is never remembered (freed, it may come back unpinned).
MemoryKind memory_kind(const void* p);

/// Whether a kernel can read `p` (device, managed or pinned host memory).
inline bool device_accessible(MemoryKind k) { return k != MemoryKind::Host; }
/// Whether the host can read `p` (anything but plain device memory).
inline bool host_accessible(MemoryKind k) { return k != MemoryKind::Device; }

const char* kind_name(MemoryKind k);

}  // namespace spx::device
