// The DSP routines of SSIM and MS-SSIM (float_ssim, float_ms_ssim) and their
// dispatch table (dav1d's model, metrics/common/cpu.h).
//
// libvmaf computes both in the IQA library's float code (feature/iqa/): every
// filter tap is a float product added to a double sum, every sum is stored
// back as a float, and the per-pixel SSIM terms mix float and double
// operations. ssim_dsp_scalar.h holds the scalar reference of each routine,
// one output at a time in libvmaf's order; ssim_dsp_simd.cpp (compiled once
// per ISA) holds twins whose lanes run across independent outputs
// (columns), never across the terms of one sum, so every value sees the same
// roundings in the same order (the build has no fused multiply-add:
// -ffp-contract=off). tests/harness/check_ssim.cpp checks them.
#pragma once

#include <cstddef>
#include <cstdint>

namespace vmafexact::ssim {

// libvmaf's 11-tap Gaussian window (iqa/ssim_tools.h, g_gaussian_window_h/_v),
// the separable form its 1-D convolution uses.
inline constexpr int kGaussianTaps = 11;
inline constexpr float kGaussian[kGaussianTaps] = {0.001028f, 0.007599f, 0.036001f, 0.109361f,
                                                   0.213006f, 0.266012f, 0.213006f, 0.109361f,
                                                   0.036001f, 0.007599f, 0.001028f};

// The SSIM terms' running sums over a picture, in libvmaf's row-major order.
struct TermSums {
  double ssim = 0, l = 0, c = 0, s = 0;
};

// libvmaf's picture_copy() of one luma row: (float)sample at 8 bits, and
// (float)sample / scaler in 16-bit containers (scaler 4, 16 or 256 for 10, 12
// and 16 bits).
using ConvertRow8Fn = void (*)(const std::uint8_t* src, unsigned w, float* dst);
using ConvertRow16Fn = void (*)(const std::uint16_t* src, unsigned w, float scaler, float* dst);

// One output row of libvmaf's _iqa_decimate(): dst[x] for x < out_w is
// _iqa_filter_pixel() at (x * factor, y * factor) of the w x h picture `img`
// with the taps x taps 2-D `kernel` (row-major), mirrored at the borders
// (KBND_SYMMETRIC): sum += (double)(img * kernel) over the kernel's rows, then
// its columns, stored as a float. `scratch` holds decimate_scratch_floats().
using DecimateRowFn = void (*)(const float* img, int w, int h, const float* kernel, int taps,
                               int factor, int y, unsigned out_w, float* dst, float* scratch);

// The scratch a DecimateRowFn needs: each of the kernel's rows split into its
// `factor` phases (columns j * factor + p), so that the twins load every tap
// of consecutive outputs from consecutive floats.
constexpr std::size_t decimate_scratch_floats(int w, int taps, int factor) {
  return static_cast<std::size_t>(taps) * static_cast<std::size_t>(factor) *
         static_cast<std::size_t>((w + factor - 1) / factor);
}

// The horizontal pass of libvmaf's separable _iqa_convolve(), one row:
// dst[x] = (float)sum_u (double)(src[x + u] * kGaussian[u]) for x < out_w.
using GaussianRowFn = void (*)(const float* src, unsigned out_w, float* dst);
// The vertical pass over the horizontal pass's rows y .. y + 10 (`rows`):
// dst[x] = (float)sum_v (double)(rows[v][x] * kGaussian[v]).
using GaussianColumnFn = void (*)(const float* const* rows, unsigned w, float* dst);

// The products the variances are filtered from: rr = ref * ref, dd = dist *
// dist, rd = ref * dist (floats).
using ProductsRowFn = void (*)(const float* ref, const float* dist, unsigned w, float* rr,
                               float* dd, float* rd);

// One row of _iqa_ssim()'s default case from the filtered maps: the variances
// and the covariance (sigma maps minus the products of the means, variances
// clamped at 0), then each pixel's luminance, contrast and structure terms,
// added to `sums` in order of x.
using TermsRowFn = void (*)(const float* mu_ref, const float* mu_dist, const float* ref_sq,
                            const float* dist_sq, const float* ref_dist, unsigned w,
                            TermSums* sums);

struct SsimDsp {
  const char* isa;
  ConvertRow8Fn convert_row_8;
  ConvertRow16Fn convert_row_16;
  DecimateRowFn decimate_row;
  GaussianRowFn gaussian_row;
  GaussianColumnFn gaussian_column;
  ProductsRowFn products_row;
  TermsRowFn terms_row;
};

const SsimDsp& ssim_dsp_scalar();
// The table of one ISA (cpu::kAvx2, cpu::kAvx512), or nullptr when this build
// has none. It may only run where cpu::detected_flags() has the flag.
const SsimDsp* ssim_dsp_isa(unsigned cpu_flag);
// The best table allowed by `cpu_flags`.
const SsimDsp& ssim_dsp(unsigned cpu_flags);

#if defined(VMAFEXACT_X86_64_SIMD)
const SsimDsp& ssim_dsp_avx2();
const SsimDsp& ssim_dsp_avx512();
#endif

}  // namespace vmafexact::ssim
