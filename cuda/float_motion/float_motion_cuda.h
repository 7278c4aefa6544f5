// CUDA twin of metrics/float_motion's per-pixel stage: the blur of a plane,
// its bilinear halving and the rows' sums of absolute differences, as kernel
// launches on a stream (float_motion_cuda_tile.h). Float planes are device
// memory with rows of exactly their width.
#pragma once

#include <cuda_runtime.h>

#include "common/picture.h"
#include "float_motion/float_motion_cuda_tile.h"

namespace vmafexact::cuda::float_motion {

// blur_plane() of `plane` (device samples of `bpc` bits, converted as
// picture_copy() with offset -128) with `filter`: the column pass into
// `vertical`, then the row pass into `blurred` (w x h floats each).
void enqueue_blur(const PlaneView& plane, unsigned bpc, const tile::Filter& filter, float* vertical,
                  float* blurred, cudaStream_t stream);

// scale_plane()'s bilinear method from w x h into out_w x out_h.
void enqueue_half(const float* plane, int w, int h, float* out, int out_w, int out_h,
                  cudaStream_t stream);

// Each row's float sum of |a - b| over w x h planes into row_sums[0..h).
void enqueue_row_sums(const float* a, const float* b, int w, int h, float* row_sums,
                      cudaStream_t stream);

}  // namespace vmafexact::cuda::float_motion
