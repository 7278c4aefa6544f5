// The per-thread pieces of the float_ansnr kernels (float_ansnr_cuda.cu), as
// __host__ __device__ functions, so that the host emulation
// (tests/harness/check_float_ansnr_cuda.cpp) runs the kernels' own code
// without a GPU. The arithmetic is the CPU's (metrics/float_ansnr/
// float_ansnr_pixel.h).
//
// Per frame, after both luma planes are converted as picture_copy() converts
// them (less 128; cuda/common/float_pictures.h), one thread per output of:
//  - filter: ansnr_filter2d_s() at (x, y), the reference with the 3x3 kernel
//    and the distorted plane with the 5x5 one;
//  - rows: one thread per row, the row's float sums of the signal and the
//    noise in the CPU's column order.
// The rows' sums come home; the host adds them in row order with the CPU's
// finishing function (float_ansnr::add_rows()).
#pragma once

#include <cstddef>

#include "float_ansnr/float_ansnr_pixel.h"

namespace vmafexact::cuda::float_ansnr::tile {

namespace pixel = vmafexact::float_ansnr::pixel;

// The offset picture_copy() adds for float_ansnr.
inline constexpr int kSampleOffset = -128;

// The filtered output at (x, y) of a w x h plane of floats (rows of w).
VMAFEXACT_HD inline float filter_output(const float* plane, int w, int h,
                                        const pixel::Kernel& kernel, int x, int y) {
  return pixel::filtered_output(kernel, y, x, w, h, [&](int row, int column) {
    return plane[static_cast<std::size_t>(row) * static_cast<std::size_t>(w) +
                 static_cast<std::size_t>(column)];
  });
}

}  // namespace vmafexact::cuda::float_ansnr::tile
