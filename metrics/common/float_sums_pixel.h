// The per-sample terms of float_sums.h's exact integer sums, shared by the CPU
// (float_sums.cpp) and the CUDA twins of float_psnr and float_moment
// (cuda/float_psnr, cuda/float_moment): inline functions that compile as
// __host__ __device__ under nvcc.
//
// A term is libvmaf's float value in units of 1 / divisor (a sample) or
// 1 / divisor^2 (a float square), float_sample_divisor() of float_sums.h: an
// integer, so a row's terms give the same total in any order or split.
#pragma once

#include <cstdint>

#include "common/host_device.h"

namespace vmafexact::float_sums {

// libvmaf's float `v * v` (v = m / divisor, m a sample or the difference of
// two) in units of 1 / divisor^2: m * m rounded to float's 24 bits.
VMAFEXACT_HD inline std::uint64_t rounded_square(std::int64_t m) {
  const std::int64_t square = m * m;
  if (square < (std::int64_t{1} << 24)) return static_cast<std::uint64_t>(square);
  return static_cast<std::uint64_t>(static_cast<float>(square));
}

// The samples of a row from column `first` in steps of `step` (the CPU takes
// the whole row: 0, 1; a CUDA block's threads take one column in `step`).
template <class Sample>
VMAFEXACT_HD inline std::uint64_t row_sample_total(const Sample* row, unsigned width,
                                                   unsigned first = 0, unsigned step = 1) {
  std::uint64_t total = 0;
  for (unsigned x = first; x < width; x += step) total += row[x];
  return total;
}

// The rounded squares of a row's samples, or with `minus` of the differences
// of the two rows' samples (psnr.c's `diff = ref - dis; diff * diff`).
template <class Sample>
VMAFEXACT_HD inline std::uint64_t row_square_total(const Sample* row, const Sample* minus,
                                                   unsigned width, unsigned first = 0,
                                                   unsigned step = 1) {
  std::uint64_t total = 0;
  for (unsigned x = first; x < width; x += step)
    total += rounded_square(std::int64_t{row[x]} - (minus ? std::int64_t{minus[x]} : 0));
  return total;
}

}  // namespace vmafexact::float_sums
