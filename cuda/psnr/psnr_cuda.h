// CUDA twin of metrics/psnr's per-pixel stage: the same exact integer sum of
// squared errors, left in device memory for a few-byte read-back.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "common/picture.h"

namespace vmafexact::cuda::psnr {

// Adds the plane's sum of squared errors to *device_sse (callers zero it):
// equal to vmafexact::psnr::plane_sse() on the same samples. At 8 bits each
// row is summed modulo 2^32 before it joins the 64-bit total, as libvmaf does;
// integer sums are exact in any order, so the block reduction order is free.
void enqueue_plane_sse(const PlaneView& ref, const PlaneView& dist, unsigned bpc,
                       unsigned long long* device_sse, cudaStream_t stream);

}  // namespace vmafexact::cuda::psnr
