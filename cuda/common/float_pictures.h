// picture_copy() on the device: both luma planes of a pair (device samples of
// `bpc` bits, byte pitches) as rows of exactly their width of floats, each
// sample float_pixel::picture_sample() plus `offset` (0 for float_ssim and
// float_ms_ssim, -128 for float_vif), one thread per sample.
#pragma once

#include <cuda_runtime.h>

#include "common/picture.h"

namespace vmafexact::cuda {

void enqueue_float_pictures(const PlaneView& ref, const PlaneView& dist, unsigned bpc, int offset,
                            float* ref_out, float* dist_out, cudaStream_t stream);

}  // namespace vmafexact::cuda
