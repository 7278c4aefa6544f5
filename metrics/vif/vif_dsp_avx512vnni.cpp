// The AVX-512 twins of the VIF DSP routines built with AVX-512 VNNI as well:
// vif_dsp_simd.h over the 512-bit vector layer, whose add_madd16 is then one
// vpdpwssd (the horizontal filters' multiply-adds fused with their sums,
// modulo 2^32 as before: the same bits). vif_dsp.cpp hands this table out as
// the AVX-512 one where the CPU has VNNI and the mask allows it.
#include <algorithm>
#include <cstdint>
#include <type_traits>

#define VMAFEXACT_AVX512_NAMESPACE avx512vnni
#include "common/simd_avx512.h"
#include "vif/vif_dsp.h"
#include "vif/vif_dsp_scalar.h"

#ifndef __AVX512VNNI__
#error "vif_dsp_avx512vnni.cpp needs -mavx512vnni (metrics/meson.build)"
#endif

namespace vmafexact::vif {
namespace avx512vnni {
namespace {

#include "vif/vif_dsp_simd.h"

}  // namespace
}  // namespace avx512vnni

const VifDsp& vif_dsp_avx512vnni() {
  static constexpr VifDsp dsp = avx512vnni::make_dsp<simd::avx512vnni::V>("avx512");
  return dsp;
}

}  // namespace vmafexact::vif
