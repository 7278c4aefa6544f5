// The AVX-512 twins of the VIF DSP routines: vif_dsp_simd.h over the 512-bit
// vector layer (metrics/common/simd_avx512.h) (no FMA: the project
// builds with -ffp-contract=off, and meson checks the objects).
#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "common/simd_avx512.h"
#include "vif/vif_dsp.h"
#include "vif/vif_dsp_scalar.h"

namespace vmafexact::vif {
namespace avx512 {
namespace {

#include "vif/vif_dsp_simd.h"

}  // namespace
}  // namespace avx512

const VifDsp& vif_dsp_avx512() {
  static constexpr VifDsp dsp = avx512::make_dsp<simd::avx512::V>("avx512");
  return dsp;
}

}  // namespace vmafexact::vif
