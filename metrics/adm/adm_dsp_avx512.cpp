// The AVX-512 twins of the ADM DSP routines (adm_dsp_simd.h over 512-bit
// vectors). Built with -mavx512f -mavx512cd -mavx512bw -mavx512dq -mavx512vl.
// GCC lets those imply FMA; the routines are integer only, and meson checks
// the objects hold no fused multiply-add.
#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <utility>

#include "adm/adm_dsp.h"
#include "adm/adm_dsp_scalar.h"

namespace vmafexact::adm {
namespace avx512 {
namespace {

constexpr int N = 16;

#include "adm/adm_dsp_simd.h"

}  // namespace
}  // namespace avx512

const AdmDsp& adm_dsp_avx512() {
  static const AdmDsp dsp = avx512::make_dsp("avx512");
  return dsp;
}

}  // namespace vmafexact::adm
