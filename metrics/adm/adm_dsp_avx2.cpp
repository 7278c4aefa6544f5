// The AVX2 twins of the ADM DSP routines (adm_dsp_simd.h over 256-bit
// vectors). Built with -mavx2 only (no FMA; the routines are integer only).
#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <utility>

#include "adm/adm_dsp.h"
#include "adm/adm_dsp_scalar.h"

namespace vmafexact::adm {
namespace avx2 {
namespace {

constexpr int N = 8;

#include "adm/adm_dsp_simd.h"

}  // namespace
}  // namespace avx2

const AdmDsp& adm_dsp_avx2() {
  static const AdmDsp dsp = avx2::make_dsp("avx2");
  return dsp;
}

}  // namespace vmafexact::adm
