// VMAFEXACT_HD marks the inline per-sample functions that the CPU code and the
// CUDA twins' kernels share (the metrics' *_pixel.h headers): __host__
// __device__ under nvcc, nothing for the C++ compiler.
#pragma once

#if defined(__CUDACC__)
#define VMAFEXACT_HD __host__ __device__
#else
#define VMAFEXACT_HD
#endif
