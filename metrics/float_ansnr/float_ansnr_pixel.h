// The per-sample arithmetic of float_ansnr (ansnr_tools.c's
// ansnr_filter2d_s() and ansnr_mse_s()), shared by the CPU code
// (float_ansnr.cpp) and the CUDA twin's kernels (cuda/float_ansnr): inline
// functions that compile as __host__ __device__ under nvcc, each doing
// libvmaf's float operations in its order (built without contraction into
// fused multiply-adds on both sides).
#pragma once

#include "common/host_device.h"

namespace vmafexact::float_ansnr::pixel {

// ansnr_tools.c's kernels: double quotients rounded to float, as its
// initialisers are. A struct, so that kernels take it by value.
struct Kernel {
  float taps[5 * 5] = {};
  int side = 0;
};
// clang-format off
inline constexpr Kernel kRefKernel{{
    1.0 / 16.0, 2.0 / 16.0, 1.0 / 16.0,
    2.0 / 16.0, 4.0 / 16.0, 2.0 / 16.0,
    1.0 / 16.0, 2.0 / 16.0, 1.0 / 16.0}, 3};
inline constexpr Kernel kDistKernel{{
    2.0 / 571.0,  7.0 / 571.0,  12.0 / 571.0,  7.0 / 571.0,  2.0 / 571.0,
    7.0 / 571.0,  31.0 / 571.0, 52.0 / 571.0,  31.0 / 571.0, 7.0 / 571.0,
    12.0 / 571.0, 52.0 / 571.0, 127.0 / 571.0, 52.0 / 571.0, 12.0 / 571.0,
    7.0 / 571.0,  31.0 / 571.0, 52.0 / 571.0,  31.0 / 571.0, 7.0 / 571.0,
    2.0 / 571.0,  7.0 / 571.0,  12.0 / 571.0,  7.0 / 571.0,  2.0 / 571.0}, 5};
// clang-format on

// ansnr_filter2d_s()'s mirror (not ANSNR_OPT_BORDER_REPLICATE): about 0, and
// about n - 1/2 (the last sample repeated).
VMAFEXACT_HD inline int mirror(int i, int n) { return i < 0 ? -i : i >= n ? 2 * n - i - 1 : i; }

// ansnr_filter2d_s()'s output (i, j) of a w x h plane, `sample(row, column)`
// its input: accum = 0, then for each kernel row the float sum of its
// products (from 0, in column order) added to accum.
template <class Sample>
VMAFEXACT_HD inline float filtered_output(const Kernel& kernel, int i, int j, int w, int h,
                                          const Sample& sample) {
  const int radius = kernel.side / 2;
  float accum = 0;
  for (int fi = 0; fi < kernel.side; ++fi) {
    const int row = mirror(i - radius + fi, h);
    float accum_inner = 0;
    for (int fj = 0; fj < kernel.side; ++fj)
      accum_inner += kernel.taps[fi * kernel.side + fj] * sample(row, mirror(j - radius + fj, w));
    accum += accum_inner;
  }
  return accum;
}

// ansnr_mse_s()'s sums over one row of the filtered planes, in column order.
struct RowSums {
  float sig = 0;
  float noise = 0;
};
VMAFEXACT_HD inline RowSums row_sums(const float* ref, const float* dist, int w) {
  RowSums sums;
  for (int j = 0; j < w; ++j) {
    sums.sig += ref[j] * ref[j];
    sums.noise += (ref[j] - dist[j]) * (ref[j] - dist[j]);
  }
  return sums;
}

}  // namespace vmafexact::float_ansnr::pixel
