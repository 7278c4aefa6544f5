// The AVX2 twins of the ADM DSP routines: adm_dsp_simd.h over 256-bit
// vectors and the avx2 vector layer (metrics/common/simd_avx2.h). Built with
// -mavx2 only (no FMA).
#include <algorithm>
#include <cstdint>
#include <utility>

#include "adm/adm_dsp.h"
#include "adm/adm_dsp_scalar.h"
#include "common/simd_avx2.h"

namespace vmafexact::adm {
namespace avx2 {
namespace {

using V = simd::avx2::V;

#include "adm/adm_dsp_simd.h"

}  // namespace
}  // namespace avx2

const AdmDsp& adm_dsp_avx2() {
  static const AdmDsp dsp = avx2::make_dsp("avx2");
  return dsp;
}

}  // namespace vmafexact::adm
