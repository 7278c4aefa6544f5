// The AVX2 twins of the PSNR DSP routines: psnr_dsp_simd.h over the 256-bit
// vector layer (metrics/common/simd_avx2.h).
#include <cstdint>

#include "common/simd_avx2.h"
#include "psnr/psnr_dsp.h"

namespace vmafexact::psnr {
namespace avx2 {
namespace {

#include "psnr/psnr_dsp_simd.h"

}  // namespace
}  // namespace avx2

const PsnrDsp& psnr_dsp_avx2() {
  static constexpr PsnrDsp dsp = avx2::make_dsp<simd::avx2::V>("avx2");
  return dsp;
}

}  // namespace vmafexact::psnr
