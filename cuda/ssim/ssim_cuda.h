// CUDA twin of metrics/ssim's per-pixel stage: the passes of ssim_cuda_tile.h
// as kernel launches on a stream. Every buffer is device memory; float
// pictures have rows of exactly their width (as the CPU's FloatImage).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "common/picture.h"

namespace vmafexact::cuda::ssim {

// _iqa_decimate() of both w x h pictures with the taps x taps `kernel`
// (device) and `factor`, into decimated_size() of each side.
void enqueue_decimate(const float* ref, const float* dist, int w, int h, const float* kernel,
                      int taps, int factor, float* ref_out, float* dist_out, cudaStream_t stream);

// The Gaussian's two passes over the w x h pair (`gaussian`: the 11 device
// taps) and the pixels' terms: `maps` holds 5 * (w - 10) * h floats (scratch),
// `terms` receives 3 arrays of (w - 10) * (h - 10) doubles: l, c, s.
void enqueue_terms(const float* ref, const float* dist, int w, int h, const float* gaussian,
                   float* maps, double* terms, cudaStream_t stream);

}  // namespace vmafexact::cuda::ssim
