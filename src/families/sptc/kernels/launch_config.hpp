// What the SpTC launchers take (plain C++, no CUDA): the configuration of one kernel as the plan
// decided it (plan/choice.hpp: choose, at analyze) and how one call reads B (plan/choice.hpp:
// launch_for, per call). spmm() launches exactly that or refuses it (cudaErrorInvalidValue); it
// decides nothing itself.
#pragma once

#include <cstdint>
#include <string>
#include <variant>

#include "families/sptc/kernels/config.hpp"

namespace spx::kernels::sptc {

/// spmm_kernel<T, BT, BN, aligned, resident>: mma.sync m16n8k32 sp, streaming (A, metadata and
/// gather indices with every k step) or resident A (BLOCK_TILE 64 / 128, BN 128, aligned B: the
/// panel's A, metadata and indices loaded once per block, reused by all its n tiles).
struct MmaConfig {
  int block_tile = 32;
  int bn = 128;
  int tiles_per_block = 1;  ///< consecutive BN-wide n tiles of one panel per block
  bool resident = false;
  bool operator==(const MmaConfig& o) const {
    return block_tile == o.block_tile && bn == o.bn && tiles_per_block == o.tiles_per_block &&
           resident == o.resident;
  }
};

/// spmm_wgmma_kernel<T, BT, BN, kSw128>: the sm_90a warpgroup kernel (wgmma.mma_async.sp),
/// BLOCK_TILE 64 / 128, BN 64 / 128, streaming, aligned row-major B only.
struct WgmmaConfig {
  int block_tile = 64;
  int bn = 128;
  int tiles_per_block = 1;     ///< consecutive BN-wide n tiles of one panel per block
  bool interleaved_b = false;  ///< B in the no-swizzle layout (kSw128 = false) instead of 128-byte
  bool operator==(const WgmmaConfig& o) const {
    return block_tile == o.block_tile && bn == o.bn && tiles_per_block == o.tiles_per_block &&
           interleaved_b == o.interleaved_b;
  }
};

/// One kernel and its configuration: what spxSpMM_search chooses among.
using SptcConfig = std::variant<MmaConfig, WgmmaConfig>;

inline bool is_wgmma(const SptcConfig& c) { return std::holds_alternative<WgmmaConfig>(c); }
inline int block_tile_of(const SptcConfig& c) {
  return std::visit([](const auto& k) { return k.block_tile; }, c);
}
inline int bn_of(const SptcConfig& c) { return std::visit([](const auto& k) { return k.bn; }, c); }
inline int tiles_per_block_of(const SptcConfig& c) {
  return std::visit([](const auto& k) { return k.tiles_per_block; }, c);
}

/// "BLOCK_TILE 64 BN 128 x3 resident A stages 3", "BLOCK_TILE 128 BN 128 x7 wgmma.sp stages 3",
/// "... wgmma.sp interleaved B stages 3" (plan info's config starts with it).
inline std::string describe(const SptcConfig& c) {
  std::string s = "BLOCK_TILE " + std::to_string(block_tile_of(c)) + " BN " +
                  std::to_string(bn_of(c)) + " x" + std::to_string(tiles_per_block_of(c));
  if (const auto* m = std::get_if<MmaConfig>(&c)) {
    if (m->resident) s += " resident A";
  } else {
    s += " wgmma.sp";
    if (std::get<WgmmaConfig>(c).interleaved_b) s += " interleaved B";
  }
  return s + " stages " + std::to_string(kStages);
}

/// Where the kernel's B comes from in one call.
enum class BSource {
  kUser,       ///< the user's row-major B
  kWorkspace,  ///< the user's column-major B, first transposed into the workspace (row-major)
  kNone,       ///< nothing to read (column-major B with k = 0)
};

/// How one call reads B (row-major, leading dimension ldb).
struct BRead {
  BSource source = BSource::kUser;
  int64_t ldb = 0;       ///< row stride in elements of the row-major B the kernel reads
  bool aligned = false;  ///< 16-byte aligned rows: the cp.async gather (else element by element)
  bool off32 = false;    ///< k x ldb x 2 bytes fits 32 bits (32-bit row offsets in the copies)
};

/// One launch: the kernel that runs for this call, its dynamic shared memory where it is not
/// the instance's fixed size (resident A: for the plan's longest panel), and how B is read.
struct SptcLaunch {
  SptcConfig kernel;
  int resident_smem = 0;
  BRead b;
};

}  // namespace spx::kernels::sptc
