// The AVX-512 twins of the PSNR DSP routines: psnr_dsp_simd.h over the 512-bit
// vector layer (metrics/common/simd_avx512.h).
#include <cstdint>

#include "common/simd_avx512.h"
#include "psnr/psnr_dsp.h"

namespace vmafexact::psnr {
namespace avx512 {
namespace {

#include "psnr/psnr_dsp_simd.h"

}  // namespace
}  // namespace avx512

const PsnrDsp& psnr_dsp_avx512() {
  static constexpr PsnrDsp dsp = avx512::make_dsp<simd::avx512::V>("avx512");
  return dsp;
}

}  // namespace vmafexact::psnr
