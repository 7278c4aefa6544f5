// CUDA twin of metrics/motion's per-pixel stage: motion_sad() of two luma
// planes in device memory, left in device memory for an 8-byte read-back.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "common/picture.h"

namespace vmafexact::cuda::motion {

// Writes motion_sad(prev, cur, bpc) to *device_sad. Both planes are in device
// memory, of the same size (at least 3x3), with byte pitches. Each row is
// summed modulo 2^32, as libvmaf does, into `row_totals` (device scratch of
// cur.height uint32, cleared here), and the rows are added in 64 bits
// (integer sums: exact in any order).
void enqueue_motion_sad(const PlaneView& prev, const PlaneView& cur, unsigned bpc,
                        std::uint32_t* row_totals, unsigned long long* device_sad,
                        cudaStream_t stream);

}  // namespace vmafexact::cuda::motion
