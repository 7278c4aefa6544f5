// CUDA twin of metrics/float_ansnr's per-pixel stage: both converted planes
// filtered and each row's signal and noise summed, as kernel launches on a
// stream (float_ansnr_cuda_tile.h). Float planes are device memory with rows
// of exactly their width.
#pragma once

#include <cuda_runtime.h>

#include "float_ansnr/float_ansnr_cuda_tile.h"

namespace vmafexact::cuda::float_ansnr {

// ansnr_filter2d_s() of the converted reference (3x3 kernel) into
// `ref_filtered` and of the converted distorted plane (5x5) into
// `dist_filtered` (w x h floats each).
void enqueue_filter(const float* ref, const float* dist, int w, int h, float* ref_filtered,
                    float* dist_filtered, cudaStream_t stream);

// Each row's pixel::row_sums() of the filtered planes: the signal sums into
// row_sig[0..h), the noise sums into row_noise[0..h).
void enqueue_row_sums(const float* ref_filtered, const float* dist_filtered, int w, int h,
                      float* row_sig, float* row_noise, cudaStream_t stream);

}  // namespace vmafexact::cuda::float_ansnr
