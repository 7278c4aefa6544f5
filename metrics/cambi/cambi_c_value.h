// The float arithmetic of one c-value term, shared by the CPU's scalar
// routine (cambi_dsp_scalar.h) and the CUDA twin's kernel
// (cuda/cambi/cambi_cuda_tile.h): an exact int32 product converted to float,
// times a float of the reciprocal table. Plain inline code that compiles as
// __host__ __device__ under nvcc, so that both sides round the same two
// operations.
#pragma once

#include <cstdint>

#include "common/host_device.h"

namespace vmafexact::cambi::pixel {

// libvmaf's c-value of one diff: weight * p0 * pm / (p0 + pm), the division
// as a product with the reciprocal table (p0, pm: counts of the window, p0 +
// pm below the table's size).
VMAFEXACT_HD inline float c_value_term(std::int32_t weight, int p0, int pm, const float* reciprocal) {
  return static_cast<float>(weight * p0 * pm) * reciprocal[p0 + pm];
}

// The larger of two c-values (non-negative, never NaN): exact in any order.
VMAFEXACT_HD inline float larger(float a, float b) { return a < b ? b : a; }

}  // namespace vmafexact::cambi::pixel
