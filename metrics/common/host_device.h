// VMAFEXACT_HD marks the inline per-sample functions that the CPU code and the
// CUDA twins' kernels share (the metrics' *_pixel.h headers): __host__
// __device__ under nvcc, nothing for the C++ compiler. Also the float bit
// casts both sides use (memcpy: std::bit_cast is not a device function).
#pragma once

#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define VMAFEXACT_HD __host__ __device__
#else
#define VMAFEXACT_HD
#endif

namespace vmafexact {

VMAFEXACT_HD inline std::uint32_t bits_of(float x) {
  std::uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  return bits;
}
VMAFEXACT_HD inline float float_of(std::uint32_t bits) {
  float x;
  std::memcpy(&x, &bits, sizeof x);
  return x;
}

}  // namespace vmafexact
