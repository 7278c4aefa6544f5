// CUDA twin of metrics/motion's per-pixel stage: motion_sad() of two luma
// planes in device memory, left in device memory for an 8-byte read-back.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "common/picture.h"

namespace vmafexact::cuda::motion {

// Adds motion_sad(prev, cur, bpc) to *device_sad (callers zero it). Both planes
// are in device memory, of the same size (at least 3x3), with byte pitches.
// Each row is summed modulo 2^32 inside one block, as libvmaf does, and the
// rows are added in 64 bits (integer sums: exact in any order).
void enqueue_motion_sad(const PlaneView& prev, const PlaneView& cur, unsigned bpc,
                        unsigned long long* device_sad, cudaStream_t stream);

}  // namespace vmafexact::cuda::motion
