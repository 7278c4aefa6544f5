// CUDA twin of metrics/float_vif's per-pixel stage: the passes of
// float_vif_cuda_tile.h as kernel launches on a stream. Float planes are
// device memory with rows of exactly their width.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "common/picture.h"
#include "float_vif/float_vif_cuda_tile.h"

namespace vmafexact::cuda::float_vif {

// vif_scale_frame_s() of both src_w x src_h planes into out_w x out_h.
void enqueue_prescale(const float* ref, const float* dist, int src_w, const tile::Prescale& tables,
                      int out_w, int out_h, float* ref_out, float* dist_out, cudaStream_t stream);

// The next scale of both w x h planes (w / 2 x h / 2), low-passed with `taps`.
void enqueue_decimate(const float* ref, const float* dist, int w, int h, const float* taps,
                      int count, float* ref_out, float* dist_out, cudaStream_t stream);

// One scale's statistic over the w x h pair: `maps` (5 * w * h floats) and
// `terms` (2 * w * h: num, then den) are scratch; each row's num and den sums
// go to row_num[0..h) and row_den[0..h).
void enqueue_scale(const float* ref, const float* dist, int w, int h, const float* taps, int count,
                   const tile::StatisticConstants& constants, float* maps, float* terms,
                   float* row_num, float* row_den, cudaStream_t stream);

}  // namespace vmafexact::cuda::float_vif
