#include "engine/operand_checks.hpp"

#include <cstdint>

#include "runtime/dtype.hpp"
#include "runtime/error.hpp"
#include "runtime/pointers.hpp"

namespace spx::engine {
namespace {

uintptr_t address(const void* p) { return reinterpret_cast<uintptr_t>(p); }

/// Bytes an element of t must be aligned to (4-bit types: a byte).
uintptr_t element_alignment(spxDataType_t t) {
  const int bytes = dtype::bits(t) / 8;
  return bytes > 1 ? static_cast<uintptr_t>(bytes) : 1;
}

void check_aligned(const void* p, uintptr_t alignment, const char* what, const char* name,
                   const char* type_name) {
  SPX_CHECK_ARG(address(p) % alignment == 0,
                "%s's %s (%p) is not aligned to its %s elements (%zu bytes)", name, what, p,
                type_name, static_cast<size_t>(alignment));
}

void check_device_readable(const void* p, const char* what, const char* name) {
  const device::MemoryKind k = device::memory_kind(p);
  SPX_CHECK_ARG(device::device_accessible(k),
                "%s's %s (%p) is %s, which the kernels cannot read: pass device memory", name,
                what, p, device::kind_name(k));
}

}  // namespace

void check_scalars(const spxContext& h, const void* alpha, const void* beta) {
  const bool device_mode = h.pointer_mode == SPX_POINTER_MODE_DEVICE;
  for (const auto& [p, name] : {std::pair{alpha, "alpha"}, std::pair{beta, "beta"}}) {
    const device::MemoryKind k = device::memory_kind(p);
    if (device_mode)
      SPX_CHECK_ARG(device::device_accessible(k),
                    "%s (%p) is %s but the handle's pointer mode is DEVICE: pass a device pointer "
                    "or set SPX_POINTER_MODE_HOST",
                    name, p, device::kind_name(k));
    else
      SPX_CHECK_ARG(device::host_accessible(k),
                    "%s (%p) is device memory but the handle's pointer mode is HOST: pass a host "
                    "pointer or set SPX_POINTER_MODE_DEVICE",
                    name, p);
  }
}

void check_dense(const spxDnMatDescr& d, const char* name) {
  if (d.rows == 0 || d.cols == 0) return;
  check_aligned(d.values, element_alignment(d.type), "values", name, dtype::name(d.type));
  check_device_readable(d.values, "values", name);
}

void check_sparse(const spxSpMatDescr& s, const char* name) {
  if (s.value_slots() > 0) {
    check_aligned(s.values, element_alignment(s.type), "values", name, dtype::name(s.type));
    check_device_readable(s.values, "values", name);
  }
  if (s.index_count() > 0) check_aligned(s.idx, 4, "index array", name, "int32");
  if (s.pointer_count() > 0) check_aligned(s.ptr, 4, "pointer array", name, "int32");
}

void check_epilogue_array(const void* p, const char* name) {
  if (p == nullptr) return;
  SPX_CHECK_ARG(address(p) % sizeof(float) == 0,
                "%s (%p) is not aligned to its fp32 elements (4 bytes)", name, p);
  const device::MemoryKind k = device::memory_kind(p);
  SPX_CHECK_ARG(device::device_accessible(k),
                "%s (%p) is %s, which the kernels cannot read: pass device memory", name, p,
                device::kind_name(k));
}

void check_workspace(const spxPlan& plan, const void* workspace) {
  if (plan.info.workspace_bytes == 0) return;
  SPX_CHECK_ARG(address(workspace) % kWorkspaceAlignment == 0,
                "workspace (%p) must be aligned to %zu bytes (as cudaMalloc returns it)",
                workspace, kWorkspaceAlignment);
}

}  // namespace spx::engine
