// CUDA twin of speed_chroma's per-picture work (metrics/speed/speed.cpp):
// the kernels of speed_cuda_tile.h over four pictures at once (the reference's
// and the distorted picture's U and V planes).
#pragma once

#include <cuda_runtime.h>

#include <array>
#include <cstddef>

#include "speed/speed_cuda_tile.h"

namespace vmafexact::cuda::speed {

// The pictures of one frame, in the order of their results: reference U,
// distorted U, reference V, distorted V.
inline constexpr unsigned kPictures = 4;
using FramePlanes = std::array<tile::SourcePlane, kPictures>;

// Floats per picture in `results`: the decimated picture less its local mean
// (low_width * low_height), then its 25x25 covariance (row-major).
inline std::size_t result_stride(const tile::Tables& t) {
  return std::size_t{t.low_width} * t.low_height + tile::kPositions * tile::kPositions;
}

// Enqueues steps 1 to 3 on `stream`: `low` holds kPictures decimated pictures
// (scratch), `results` kPictures * result_stride(t) floats. All in device memory.
void enqueue_speed_pictures(const FramePlanes& planes, const tile::Tables& t, float* low,
                            float* results, cudaStream_t stream);

}  // namespace vmafexact::cuda::speed
