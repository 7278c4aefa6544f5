// The scalar references of speed_dsp.h's routines, over ranges so that the
// SIMD twins can hand them the tails beyond their last whole vector.
#pragma once

#include <cstdint>

#include "speed/speed_dsp.h"
#include "speed/speed_pixel.h"

namespace vmafexact::speed::scalar {

using pixel::kSampleOffset;

inline void convert_row_8(const std::uint8_t* src, unsigned begin, unsigned end, float* dst) {
  for (unsigned x = begin; x < end; ++x)
    dst[x] = float_pixel::sample_to_float(src[x], kSampleOffset);
}

inline void convert_row_16(const std::uint16_t* src, unsigned begin, unsigned end, float scaler,
                           float* dst) {
  for (unsigned x = begin; x < end; ++x)
    dst[x] = float_pixel::sample_to_float(src[x], scaler, kSampleOffset);
}

inline void subtract_row(float* dst, const float* sub, unsigned begin, unsigned end) {
  for (unsigned x = begin; x < end; ++x) dst[x] -= sub[x];
}

inline void accumulate_row(float* acc, const float* row, float coeff, unsigned begin,
                           unsigned end) {
  for (unsigned x = begin; x < end; ++x) acc[x] += coeff * row[x];
}

// Rows [x_begin, x_end) of the lower triangle.
inline void covariance(const double* centered, unsigned count, unsigned x_begin, unsigned x_end,
                       double* sums) {
  for (unsigned e = 0; e < count; ++e) {
    const double* c = centered + std::size_t{e} * kCovLanes;
    for (unsigned x = x_begin; x < x_end; ++x)
      for (unsigned y = 0; y <= x; ++y) sums[x * kCovLanes + y] += c[x] * c[y];
  }
}

// Columns [col_begin, col_end) of every row of dst.
inline void matmul(const float* x, const float* y, unsigned rows, unsigned inner, unsigned cols,
                   unsigned col_begin, unsigned col_end, float* dst) {
  for (unsigned i = 0; i < rows; ++i) {
    float* out = dst + std::size_t{i} * cols;
    for (unsigned j = col_begin; j < col_end; ++j) out[j] = 0;
    for (unsigned k = 0; k < inner; ++k) {
      const float xik = x[std::size_t{i} * inner + k];
      const float* yk = y + std::size_t{k} * cols;
      for (unsigned j = col_begin; j < col_end; ++j) out[j] += xik * yk[j];
    }
  }
}

}  // namespace vmafexact::speed::scalar
