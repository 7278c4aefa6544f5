// The AVX2 twins of the SSIM DSP routines: ssim_dsp_simd.h over the vector
// layer of metrics/common/simd_avx2.h.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/simd_avx2.h"
#include "ssim/ssim_dsp.h"
#include "ssim/ssim_dsp_scalar.h"

namespace vmafexact::ssim {
namespace avx2 {
namespace {

#include "ssim/ssim_dsp_simd.h"

}  // namespace
}  // namespace avx2

const SsimDsp& ssim_dsp_avx2() {
  static const SsimDsp dsp = avx2::make_dsp<simd::avx2::V>("avx2");
  return dsp;
}

}  // namespace vmafexact::ssim
