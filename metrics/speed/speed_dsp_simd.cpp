// The SIMD twins of the SpEED DSP routines, written once over the vector layer
// `V` (metrics/common/simd.h: its floats across the vector, FW, N of them, and
// its doubles, NF) and compiled once per ISA by metrics/meson.build
// (speed_dsp_avx2(), speed_dsp_avx512()).
//
// Exactness against speed_dsp_scalar.h: each lane computes one output with
// the scalar code's operations in its order (IEEE add, sub, mul, div and
// conversions round the same in a lane as in a scalar register; no fused
// multiply-add, no reassociation):
//  * rows: lane x is column x;
//  * covariance: lane y is the partner position y of a broadcast position x,
//    and every lane adds its products for e = 0, 1, .. in order;
//  * matmul: lane j is column j of the output row, adding k = 0, 1, .. in order.
// Columns beyond the last whole vector go to the scalar reference or to
// masked loads and stores whose lanes outside the range are not stored.

#include <cstddef>
#include <cstdint>

#include "common/simd.h"
#include "speed/speed_dsp.h"
#include "speed/speed_dsp_scalar.h"

namespace vmafexact::speed {
namespace VMAFEXACT_ISA {
namespace {

template <class V>
void convert_row_8(const std::uint8_t* src, unsigned w, float* dst) {
  constexpr unsigned N = V::N;
  const typename V::FW offset = V::set1fw(scalar::kSampleOffset);
  unsigned x = 0;
  for (; x + N <= w; x += N) V::storefw(dst + x, V::addfw(V::cvtfw(src + x), offset));
  scalar::convert_row_8(src, x, w, dst);
}

template <class V>
void convert_row_16(const std::uint16_t* src, unsigned w, float scaler, float* dst) {
  constexpr unsigned N = V::N;
  const typename V::FW offset = V::set1fw(scalar::kSampleOffset);
  const typename V::FW divisor = V::set1fw(scaler);
  unsigned x = 0;
  for (; x + N <= w; x += N)
    V::storefw(dst + x, V::addfw(V::divfw(V::cvtfw(src + x), divisor), offset));
  scalar::convert_row_16(src, x, w, scaler, dst);
}

template <class V>
void subtract_row(float* dst, const float* sub, unsigned w) {
  constexpr unsigned N = V::N;
  unsigned x = 0;
  for (; x + N <= w; x += N) V::storefw(dst + x, V::subfw(V::loadfw(dst + x), V::loadfw(sub + x)));
  scalar::subtract_row(dst, sub, x, w);
}

template <class V>
void accumulate_row(float* acc, const float* row, float coeff, unsigned w) {
  constexpr unsigned N = V::N;
  const typename V::FW c = V::set1fw(coeff);
  unsigned x = 0;
  for (; x + 2 * N <= w; x += 2 * N) {
    V::storefw(acc + x, V::addfw(V::loadfw(acc + x), V::mulfw(c, V::loadfw(row + x))));
    V::storefw(acc + x + N, V::addfw(V::loadfw(acc + x + N), V::mulfw(c, V::loadfw(row + x + N))));
  }
  for (; x + N <= w; x += N)
    V::storefw(acc + x, V::addfw(V::loadfw(acc + x), V::mulfw(c, V::loadfw(row + x))));
  scalar::accumulate_row(acc, row, coeff, x, w);
}

// For each vector of partners y (lanes yb .. yb + D - 1), positions x from yb
// up, at most kChunk at a time so that the accumulators stay in registers.
template <class V>
void covariance(const double* centered, unsigned count, double* sums) {
  using D = typename V::D;
  constexpr unsigned L = V::NF;
  constexpr unsigned kChunk = 8;
  for (unsigned yb = 0; yb < 25; yb += L) {
    for (unsigned x0 = yb; x0 < 25; x0 += kChunk) {
      const unsigned xs = 25 - x0 < kChunk ? 25 - x0 : kChunk;
      D acc[kChunk];
      for (unsigned i = 0; i < kChunk; ++i)
        acc[i] = i < xs ? V::loadd(sums + (x0 + i) * kCovLanes + yb) : V::zerod();
      const double* c = centered;
      for (unsigned e = 0; e < count; ++e, c += kCovLanes) {
        const D partners = V::loadd(c + yb);
        for (unsigned i = 0; i < kChunk; ++i)
          if (i < xs) acc[i] = V::addd(acc[i], V::muld(V::set1d(c[x0 + i]), partners));
      }
      for (unsigned i = 0; i < xs; ++i) V::stored(sums + (x0 + i) * kCovLanes + yb, acc[i]);
    }
  }
}

// B vectors of one output row at a time, in registers, the last one masked
// to the `last` lanes left (1 <= last <= N).
template <class V, unsigned B>
void matmul_row(const float* xi, const float* y, unsigned inner, unsigned cols, typename V::M last,
                float* out) {
  using F = typename V::FW;
  constexpr unsigned N = V::N;
  F acc[B];
  for (unsigned b = 0; b < B; ++b) acc[b] = V::zerofw();
  for (unsigned k = 0; k < inner; ++k) {
    const F xik = V::set1fw(xi[k]);
    const float* yk = y + std::size_t{k} * cols;
    for (unsigned b = 0; b + 1 < B; ++b)
      acc[b] = V::addfw(acc[b], V::mulfw(xik, V::loadfw(yk + b * N)));
    acc[B - 1] = V::addfw(acc[B - 1], V::mulfw(xik, V::loadfw_masked(yk + (B - 1) * N, last)));
  }
  for (unsigned b = 0; b + 1 < B; ++b) V::storefw(out + b * N, acc[b]);
  V::storefw_masked(out + (B - 1) * N, acc[B - 1], last);
}

template <class V>
void matmul(const float* x, const float* y, unsigned rows, unsigned inner, unsigned cols,
            float* dst) {
  constexpr unsigned N = V::N;
  constexpr unsigned kBlocks = 4;
  if (cols == 0) return;
  for (unsigned i = 0; i < rows; ++i) {
    const float* xi = x + std::size_t{i} * inner;
    float* out = dst + std::size_t{i} * cols;
    unsigned j0 = 0;
    for (; j0 + kBlocks * N < cols; j0 += kBlocks * N)
      matmul_row<V, kBlocks>(xi, y + j0, inner, cols, V::mask_first(N), out + j0);
    // The rest: 1 to kBlocks vectors, the last one partial.
    const unsigned left = cols - j0;
    const unsigned blocks = (left + N - 1) / N;
    const typename V::M last = V::mask_first(left - (blocks - 1) * N);
    switch (blocks) {
      case 1: matmul_row<V, 1>(xi, y + j0, inner, cols, last, out + j0); break;
      case 2: matmul_row<V, 2>(xi, y + j0, inner, cols, last, out + j0); break;
      case 3: matmul_row<V, 3>(xi, y + j0, inner, cols, last, out + j0); break;
      default: matmul_row<V, 4>(xi, y + j0, inner, cols, last, out + j0); break;
    }
  }
}

template <class V>
constexpr SpeedDsp make_dsp(const char* isa) {
  return SpeedDsp{isa,          convert_row_8<V>, convert_row_16<V>, subtract_row<V>,
                  accumulate_row<V>, covariance<V>, matmul<V>};
}

}  // namespace
}  // namespace VMAFEXACT_ISA

const SpeedDsp& VMAFEXACT_ISA_NAMED(speed_dsp)() {
  static constexpr SpeedDsp dsp =
      VMAFEXACT_ISA::make_dsp<simd::VMAFEXACT_ISA::V>(simd::VMAFEXACT_ISA::kIsaName);
  return dsp;
}

}  // namespace vmafexact::speed
