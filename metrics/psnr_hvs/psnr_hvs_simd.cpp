// The SIMD twins of PSNR-HVS's plane sum: psnr_hvs_blocks.h with one block
// per lane of the vector layer (metrics/common/simd.h: V::N, 8 blocks of a row
// side by side for AVX2, 16 for AVX-512), compiled once per ISA by
// metrics/meson.build (psnr_hvs_dsp_avx2(), psnr_hvs_dsp_avx512()).
#include <cmath>
#include <cstdint>
#include <cstdlib>

#include "common/simd.h"
#include "psnr_hvs/psnr_hvs.h"

namespace vmafexact::psnr_hvs {
namespace VMAFEXACT_ISA {
namespace {

#include "psnr_hvs/psnr_hvs_blocks.h"

PlaneSum plane_sum(const PlaneView& ref, const PlaneView& dist, unsigned bpc,
                   const float (&csf)[8][8]) {
  return plane_sum_fn<simd::VMAFEXACT_ISA::V::N>(ref, dist, bpc, csf);
}

}  // namespace
}  // namespace VMAFEXACT_ISA

const PsnrHvsDsp& VMAFEXACT_ISA_NAMED(psnr_hvs_dsp)() {
  static constexpr PsnrHvsDsp dsp{simd::VMAFEXACT_ISA::kIsaName, VMAFEXACT_ISA::plane_sum};
  return dsp;
}

}  // namespace vmafexact::psnr_hvs
