// The SIMD twins of the SSIM DSP routines, written once over the vector layer
// `V` (metrics/common/simd.h; its float lanes: NF floats and as many doubles)
// and compiled once per ISA by metrics/meson.build (ssim_dsp_avx2(),
// ssim_dsp_avx512()).
//
// Exactness against ssim_dsp_scalar.h: every lane is one output of the
// scalar loop. A filter tap is the float product (mulf), widened exactly to
// double (cvt_f32_f64) and added to that output's double sum (addd) in the
// scalar's tap order, the sum starting at 0.0 as there; the sum is rounded to
// float once (cvt_f64_f32). Several outputs run side by side in independent
// accumulators only to hide the adds' latency. The SSIM terms use the
// scalar's float and double operations lane for lane (IEEE division and
// square root are correctly rounded in both), and their sums are formed by
// adding the lanes one by one in order of x. Borders and tails go to the
// scalar reference.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/simd.h"
#include "ssim/ssim_dsp.h"
#include "ssim/ssim_dsp_scalar.h"

namespace vmafexact::ssim {
namespace VMAFEXACT_ISA {
namespace {

template <class V>
void convert_row_8(const std::uint8_t* src, unsigned w, float* dst) {
  unsigned x = 0;
  for (; x + V::NF <= w; x += V::NF) V::storef(dst + x, V::cvtf(src + x));
  scalar::convert_row_8(src, x, w, dst);
}

template <class V>
void convert_row_16(const std::uint16_t* src, unsigned w, float scaler, float* dst) {
  const typename V::F divisor = V::set1f(scaler);
  unsigned x = 0;
  for (; x + V::NF <= w; x += V::NF) V::storef(dst + x, V::divf(V::cvtf(src + x), divisor));
  scalar::convert_row_16(src, x, w, scaler, dst);
}

// `kVectors` vectors of outputs at once, each output the sum over `taps` of
// load(tap, lane offset) * weight(tap).
template <class V, unsigned kVectors, class Weight, class Load>
inline void filter_vectors(int taps, Weight&& weight, Load&& load, float* dst) {
  typename V::D acc[kVectors];
  for (unsigned j = 0; j < kVectors; ++j) acc[j] = V::set1d(0.0);
  for (int t = 0; t < taps; ++t) {
    const typename V::F w = weight(t);
    for (unsigned j = 0; j < kVectors; ++j)
      acc[j] = V::addd(acc[j], V::cvt_f32_f64(V::mulf(load(t, j * V::NF), w)));
  }
  for (unsigned j = 0; j < kVectors; ++j) V::storef(dst + j * V::NF, V::cvt_f64_f32(acc[j]));
}

// Four vectors while they fit, then one at a time; returns where it stopped.
template <class V, class Weight, class Load>
inline unsigned filter_span(unsigned begin, unsigned end, int taps, Weight&& weight, Load&& load,
                            float* dst) {
  constexpr unsigned kWide = 4 * V::NF;
  unsigned x = begin;
  for (; x + kWide <= end; x += kWide)
    filter_vectors<V, 4>(
        taps, weight, [&](int t, unsigned lane) { return load(t, x + lane); }, dst + x);
  for (; x + V::NF <= end; x += V::NF)
    filter_vectors<V, 1>(
        taps, weight, [&](int t, unsigned lane) { return load(t, x + lane); }, dst + x);
  return x;
}

template <class V>
struct GaussianWeights {
  typename V::F w[kGaussianTaps];
  GaussianWeights() {
    for (int t = 0; t < kGaussianTaps; ++t) w[t] = V::set1f(kGaussian[t]);
  }
};

template <class V>
void gaussian_row(const float* src, unsigned out_w, float* dst) {
  const GaussianWeights<V> weights;
  const unsigned x = filter_span<V>(
      0, out_w, kGaussianTaps, [&](int t) { return weights.w[t]; },
      [&](int t, unsigned at) { return V::loadf(src + at + t); }, dst);
  scalar::gaussian_row(src, x, out_w, dst);
}

template <class V>
void gaussian_column(const float* const* rows, unsigned w, float* dst) {
  const GaussianWeights<V> weights;
  const unsigned x = filter_span<V>(
      0, w, kGaussianTaps, [&](int t) { return weights.w[t]; },
      [&](int t, unsigned at) { return V::loadf(rows[t] + at); }, dst);
  scalar::gaussian_column(rows, x, w, dst);
}

template <class V>
void products_row(const float* ref, const float* dist, unsigned w, float* rr, float* dd,
                  float* rd) {
  unsigned x = 0;
  for (; x + V::NF <= w; x += V::NF) {
    const typename V::F r = V::loadf(ref + x), d = V::loadf(dist + x);
    V::storef(rr + x, V::mulf(r, r));
    V::storef(dd + x, V::mulf(d, d));
    V::storef(rd + x, V::mulf(r, d));
  }
  scalar::products_row(ref, dist, x, w, rr, dd, rd);
}

template <class V>
void terms_row(const float* mu_r_row, const float* mu_d_row, const float* rr_row,
               const float* dd_row, const float* rd_row, unsigned w, TermSums* sums) {
  using F = typename V::F;
  using D = typename V::D;
  const F zero = V::zerof(), c1 = V::set1f(scalar::kC1), c2 = V::set1f(scalar::kC2),
          c3 = V::set1f(scalar::kC3);
  const D two = V::set1d(2.0), c1d = V::set1d(scalar::kC1), c2d = V::set1d(scalar::kC2);
  TermSums s = *sums;
  unsigned x = 0;
  for (; x + V::NF <= w; x += V::NF) {
    const F mu_r = V::loadf(mu_r_row + x), mu_d = V::loadf(mu_d_row + x);
    F var_r = V::subf(V::loadf(rr_row + x), V::mulf(mu_r, mu_r));
    var_r = V::selectf(V::ltf(var_r, zero), zero, var_r);
    F var_d = V::subf(V::loadf(dd_row + x), V::mulf(mu_d, mu_d));
    var_d = V::selectf(V::ltf(var_d, zero), zero, var_d);
    const F cov = V::subf(V::loadf(rd_row + x), V::mulf(mu_r, mu_d));
    const F sigma_rd = V::rootf(V::mulf(var_r, var_d));
    const D l = V::divd(
        V::addd(V::muld(V::muld(two, V::cvt_f32_f64(mu_r)), V::cvt_f32_f64(mu_d)), c1d),
        V::cvt_f32_f64(V::addf(V::addf(V::mulf(mu_r, mu_r), V::mulf(mu_d, mu_d)), c1)));
    const D c = V::divd(V::addd(V::muld(two, V::cvt_f32_f64(sigma_rd)), c2d),
                        V::cvt_f32_f64(V::addf(V::addf(var_r, var_d), c2)));
    const F clamped_cov = V::selectf(V::maskf_and(V::ltf(cov, zero), V::lef(sigma_rd, zero)), zero, cov);
    const D st = V::cvt_f32_f64(V::divf(V::addf(clamped_cov, c3), V::addf(sigma_rd, c3)));
    alignas(64) double lcs_lanes[V::NF], l_lanes[V::NF], c_lanes[V::NF], s_lanes[V::NF];
    V::stored(lcs_lanes, V::muld(V::muld(l, c), st));
    V::stored(l_lanes, l);
    V::stored(c_lanes, c);
    V::stored(s_lanes, st);
    for (int i = 0; i < V::NF; ++i) {  // the sums in order of x
      s.ssim += lcs_lanes[i];
      s.l += l_lanes[i];
      s.c += c_lanes[i];
      s.s += s_lanes[i];
    }
  }
  *sums = s;
  scalar::terms_row(mu_r_row, mu_d_row, rr_row, dd_row, rd_row, x, w, sums);
}

template <class V>
void decimate_row(const float* img, int w, int h, const float* kernel, int taps, int factor, int y,
                  unsigned out_w, float* dst, float* scratch) {
  const int half = taps / 2, last = taps - 1 - half;
  // Outputs whose every tap lies inside the row need no mirroring.
  const int first_inner = (half + factor - 1) / factor;
  const int end_inner =
      w - 1 - last < 0 ? 0 : std::min(static_cast<int>(out_w), (w - 1 - last) / factor + 1);
  if (end_inner - first_inner < V::NF) {
    scalar::decimate_row(img, w, h, kernel, taps, factor, y, 0, out_w, dst);
    return;
  }
  // The kernel's rows (mirrored at the top and bottom) split into phases:
  // phase p of row t holds columns j * factor + p.
  const int phase_len = (w + factor - 1) / factor;
  const auto phase = [&](int t, int p) {
    return scratch + (static_cast<std::ptrdiff_t>(t) * factor + p) * phase_len;
  };
  for (int t = 0; t < taps; ++t) {
    const float* row = img + static_cast<std::ptrdiff_t>(scalar::mirror(y * factor - half + t, h)) * w;
    for (int p = 0; p < factor; ++p) {
      float* out = phase(t, p);
      for (int j = 0; j * factor + p < w; ++j) out[j] = row[j * factor + p];
    }
  }
  // Tap k = t * taps + (u + half) reads column (x + offset) * factor + p of row
  // t, weighted by kernel[k]. The kernel has factor^2 taps, and float_ssim's
  // automatic factor grows with the picture (17 at 8K): the sources live on
  // the heap, one allocation per output row.
  const int count = taps * taps;
  std::vector<const float*> sources(static_cast<std::size_t>(count));
  for (int t = 0, k = 0; t < taps; ++t)
    for (int u = -half; u <= last; ++u, ++k) {
      const int p = ((u % factor) + factor) % factor;
      sources[static_cast<std::size_t>(k)] = phase(t, p) + (u - p) / factor;
    }
  scalar::decimate_row(img, w, h, kernel, taps, factor, y, 0, static_cast<unsigned>(first_inner), dst);
  const unsigned x = filter_span<V>(
      static_cast<unsigned>(first_inner), static_cast<unsigned>(end_inner), count,
      [&](int k) { return V::set1f(kernel[k]); },
      [&](int k, unsigned at) { return V::loadf(sources[static_cast<std::size_t>(k)] + at); }, dst);
  scalar::decimate_row(img, w, h, kernel, taps, factor, y, x, out_w, dst);
}

template <class V>
constexpr SsimDsp make_dsp(const char* isa) {
  return {isa,           convert_row_8<V>, convert_row_16<V>, decimate_row<V>, gaussian_row<V>,
          gaussian_column<V>, products_row<V>,  terms_row<V>};
}

}  // namespace
}  // namespace VMAFEXACT_ISA

const SsimDsp& VMAFEXACT_ISA_NAMED(ssim_dsp)() {
  static const SsimDsp dsp =
      VMAFEXACT_ISA::make_dsp<simd::VMAFEXACT_ISA::V>(simd::VMAFEXACT_ISA::kIsaName);
  return dsp;
}

}  // namespace vmafexact::ssim
