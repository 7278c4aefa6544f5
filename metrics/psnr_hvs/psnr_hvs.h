// PSNR-HVS as libvmaf 3.2.0's "psnr_hvs" extractor computes it
// (third_party/xiph/psnr_hvs.c at master f85a8536, Xiph.Org's Daala code): for
// each plane, 8x8 blocks every 7 samples; each block's means and variances in
// float, Daala's integer 8x8 DCT of both pictures, a contrast mask from the
// AC energy, and the CSF-weighted squared differences above the mask, summed
// in float over the plane in block order. Then per plane 10 log10 of the
// inverse of that sum over the terms and the peak squared, and psnr_hvs from
// 0.8 of luma's and 0.1 of each chroma plane's.
#pragma once

#include <array>
#include <cstdint>

#include "common/feature_stage.h"

namespace vmafexact::psnr_hvs {

// Block side and step: blocks overlap by one sample.
inline constexpr unsigned kBlock = 8;
inline constexpr unsigned kStep = 7;

// Daala's od_bin_fdct8x8(): the integer 8x8 DCT of `in` (row-major) into `out`.
void fdct8x8(const std::int32_t in[64], std::int32_t out[64]);

// calc_psnrhvs()'s float sum over one plane, before its divisions: the sum
// itself and how many terms it added (64 per block).
struct PlaneSum {
  float sum = 0;
  int terms = 0;
};
// `csf_plane`: 0 for luma's table, 1 and 2 for the chroma planes'.
PlaneSum plane_sum(const PlaneView& ref, const PlaneView& dist, unsigned bpc, unsigned csf_plane);

// The per-pixel stage's result: each plane's sum.
struct PsnrHvsSums {
  std::array<PlaneSum, 3> planes{};
};

// The finishing function: each plane's score (libvmaf's `ret` after its
// divisions, as a double), then the four values in libvmaf's order:
// psnr_hvs_y, psnr_hvs_cb, psnr_hvs_cr, psnr_hvs.
std::array<double, 4> scores_of(const PsnrHvsSums& sums, unsigned bpc);

class PsnrHvsCpuStage final : public FeatureStage<PsnrHvsSums> {
 public:
  PsnrHvsSums compute(const PictureView& ref, const PictureView& dist, unsigned index) override;
};

}  // namespace vmafexact::psnr_hvs
