// The AVX2 twin of PSNR-HVS's plane sum: psnr_hvs_blocks.h compiled for
// AVX2, 8 blocks of a row side by side.
#include <cmath>
#include <cstdint>
#include <cstdlib>

#include "psnr_hvs/psnr_hvs.h"

namespace vmafexact::psnr_hvs {
namespace avx2 {
namespace {

#include "psnr_hvs/psnr_hvs_blocks.h"

PlaneSum plane_sum(const PlaneView& ref, const PlaneView& dist, unsigned bpc,
                   const float (&csf)[8][8]) {
  return plane_sum_fn<8>(ref, dist, bpc, csf);
}

}  // namespace
}  // namespace avx2

const PsnrHvsDsp& psnr_hvs_dsp_avx2() {
  static constexpr PsnrHvsDsp dsp{"avx2", avx2::plane_sum};
  return dsp;
}

}  // namespace vmafexact::psnr_hvs
