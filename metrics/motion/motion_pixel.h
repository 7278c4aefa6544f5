// The per-pixel arithmetic of integer motion, shared by the CPU path
// (motion.cpp) and the CUDA twin's kernel (cuda/motion/motion_cuda.cu): plain
// inline integer functions that compile as __host__ __device__ under nvcc.
#pragma once

#include <cstdint>

#include "common/host_device.h"

namespace vmafexact::motion::pixel {

// Whole-sample mirroring at the borders (the edge sample is not repeated):
// -1 -> 1, -2 -> 2, size -> size - 2, size + 1 -> size - 3. Valid for
// -2 <= index <= size + 1 and size >= 3.
VMAFEXACT_HD inline int mirror(int index, int size) {
  if (index < 0) return -index;
  if (index >= size) return 2 * size - index - 2;
  return index;
}

// libvmaf's 5-tap filter applied to five values (taps 3571, 16004, 26386,
// 16004, 3571; motion.h's kFilter, checked there): an exact int64 (each
// product is below 2^31 in magnitude, the sum below 2^32).
VMAFEXACT_HD inline std::int64_t filter5(std::int64_t a, std::int64_t b, std::int64_t c,
                                         std::int64_t d, std::int64_t e) {
  return 3571 * a + 16004 * b + 26386 * c + 16004 * d + 3571 * e;
}

// The vertical pass's rounding: (sum + 2^(bpc-1)) >> bpc, an arithmetic shift
// (floor for negative sums). The result's magnitude is at most 65536.
VMAFEXACT_HD inline std::int32_t vertical_round(std::int64_t sum, unsigned bpc) {
  return static_cast<std::int32_t>((sum + (std::int64_t{1} << (bpc - 1))) >> bpc);
}

// The horizontal pass's rounding, (sum + 2^15) >> 16, and the absolute value
// that joins the row's uint32 sum.
VMAFEXACT_HD inline std::uint32_t horizontal_abs(std::int64_t sum) {
  const auto value = static_cast<std::int32_t>((sum + (std::int64_t{1} << 15)) >> 16);
  return static_cast<std::uint32_t>(value < 0 ? -value : value);
}

}  // namespace vmafexact::motion::pixel
