// The launch shape of the twins' one-thread-per-output passes (float_pictures,
// SSIM, float_motion, float_vif, float_adm): blocks of 32 x 8 threads over a
// w x h grid of outputs (`depth` pictures or planes side by side), and one
// thread per row in blocks of 128 for the rows' serial sums.
#pragma once

#include <cuda_runtime.h>

namespace vmafexact::cuda {

inline constexpr int kBlockX = 32, kBlockY = 8, kRowBlock = 128;

inline dim3 block_2d() { return dim3(kBlockX, kBlockY); }

inline dim3 grid_2d(int w, int h, int depth = 1) {
  return dim3(static_cast<unsigned>((w + kBlockX - 1) / kBlockX),
              static_cast<unsigned>((h + kBlockY - 1) / kBlockY), static_cast<unsigned>(depth));
}

// Blocks of kRowBlock threads for one thread per row.
inline unsigned row_blocks(int rows) {
  return static_cast<unsigned>((rows + kRowBlock - 1) / kRowBlock);
}

}  // namespace vmafexact::cuda
