// The DSP routines of SpEED (speed_chroma, speed_temporal) and their dispatch
// table (dav1d's model, metrics/common/cpu.h).
//
// speed_dsp_scalar.h holds the scalar reference of each routine: libvmaf's
// float and double operations, one output at a time, in libvmaf's order.
// speed_dsp_simd.cpp (compiled once per ISA) holds twins that give identical
// outputs for every input (tests/harness/check_speed.cpp checks it): their
// lanes run across independent outputs (columns, matrix entries), never across
// the terms of one sum, so every value sees the same roundings in the same
// order (the project builds with -ffp-contract=off: no fused multiply-add).
#pragma once

#include <cstddef>
#include <cstdint>

namespace vmafexact::speed {

// The lanes of one row of centered values in covariance(): the 25 positions of
// a 5x5 block, padded to a multiple of every vector width.
inline constexpr unsigned kCovLanes = 32;

// libvmaf's picture_copy() of one row: dst[x] = (float)src[x] + (-128) at 8 bits.
using ConvertRow8Fn = void (*)(const std::uint8_t* src, unsigned w, float* dst);
// ... and dst[x] = (float)src[x] / scaler + (-128) in 16-bit containers
// (scaler 4, 16 or 256 for 10, 12 and 16 bits).
using ConvertRow16Fn = void (*)(const std::uint16_t* src, unsigned w, float scaler, float* dst);
// dst[x] -= sub[x] (libvmaf's subtract_image, one row).
using SubtractRowFn = void (*)(float* dst, const float* sub, unsigned w);
// acc[x] += coeff * row[x]: one tap of the vertical pass of libvmaf's
// vif_filter1d_s, whose per-sample sum starts at 0 and adds the taps in order.
using AccumulateRowFn = void (*)(float* acc, const float* row, float coeff, unsigned w);
// sums[x * kCovLanes + y] += centered[e * kCovLanes + x] * centered[e * kCovLanes + y]
// in double for e = 0 .. count-1 in order, for every x < 25 and y <= x (lanes
// y > x, up to the end of x's vector, may be written too: they are not read).
using CovarianceFn = void (*)(const double* centered, unsigned count, double* sums);
// dst (rows x cols) = x (rows x inner) * y (inner x cols), row-major, as
// libvmaf's matrix_mul: every entry starts at 0 and adds x[i][k] * y[k][j]
// for k = 0 .. inner-1 in order (float).
using MatMulFn = void (*)(const float* x, const float* y, unsigned rows, unsigned inner,
                          unsigned cols, float* dst);

struct SpeedDsp {
  const char* isa;
  ConvertRow8Fn convert_row_8;
  ConvertRow16Fn convert_row_16;
  SubtractRowFn subtract_row;
  AccumulateRowFn accumulate_row;
  CovarianceFn covariance;
  MatMulFn matmul;
};

const SpeedDsp& speed_dsp_scalar();
// The table of one ISA (cpu::kAvx2, cpu::kAvx512), or nullptr when this build
// has none. It may only run where cpu::detected_flags() has the flag.
const SpeedDsp* speed_dsp_isa(unsigned cpu_flag);
// The best table allowed by `cpu_flags`.
const SpeedDsp& speed_dsp(unsigned cpu_flags);

#if defined(VMAFEXACT_X86_64_SIMD)
const SpeedDsp& speed_dsp_avx2();
const SpeedDsp& speed_dsp_avx512();
#endif

}  // namespace vmafexact::speed
