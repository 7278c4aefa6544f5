// The AVX2 twins of the VIF DSP routines: vif_dsp_simd.h over the 256-bit
// vector layer (metrics/common/simd_avx2.h) (no FMA: the project
// builds with -ffp-contract=off, and meson checks the objects).
#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "common/simd_avx2.h"
#include "vif/vif_dsp.h"
#include "vif/vif_dsp_scalar.h"

namespace vmafexact::vif {
namespace avx2 {
namespace {

#include "vif/vif_dsp_simd.h"

}  // namespace
}  // namespace avx2

const VifDsp& vif_dsp_avx2() {
  static constexpr VifDsp dsp = avx2::make_dsp<simd::avx2::V>("avx2");
  return dsp;
}

}  // namespace vmafexact::vif
