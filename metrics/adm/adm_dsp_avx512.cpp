// The AVX-512 twins of the ADM DSP routines: adm_dsp_simd.h over 512-bit
// vectors and the avx512 vector layer (metrics/common/simd_avx512.h).
// GCC lets the AVX-512 flags imply FMA; meson checks the objects hold no
// fused multiply-add.
#include <algorithm>
#include <cstdint>
#include <utility>

#include "adm/adm_dsp.h"
#include "adm/adm_dsp_scalar.h"
#include "common/simd_avx512.h"

namespace vmafexact::adm {
namespace avx512 {
namespace {

using V = simd::avx512::V;

#include "adm/adm_dsp_simd.h"

}  // namespace
}  // namespace avx512

const AdmDsp& adm_dsp_avx512() {
  static const AdmDsp dsp = avx512::make_dsp("avx512");
  return dsp;
}

}  // namespace vmafexact::adm
