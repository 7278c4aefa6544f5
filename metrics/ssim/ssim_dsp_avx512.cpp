// The AVX-512 twins of the SSIM DSP routines: ssim_dsp_simd.h over the vector
// layer of metrics/common/simd_avx512.h.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/simd_avx512.h"
#include "ssim/ssim_dsp.h"
#include "ssim/ssim_dsp_scalar.h"

namespace vmafexact::ssim {
namespace avx512 {
namespace {

#include "ssim/ssim_dsp_simd.h"

}  // namespace
}  // namespace avx512

const SsimDsp& ssim_dsp_avx512() {
  static const SsimDsp dsp = avx512::make_dsp<simd::avx512::V>("avx512");
  return dsp;
}

}  // namespace vmafexact::ssim
