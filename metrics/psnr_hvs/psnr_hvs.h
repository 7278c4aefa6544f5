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

// The plane sum's dispatch table (dav1d's model, metrics/common/dispatch.h):
// the scalar reference runs libvmaf's blocks one at a time; the AVX2 and
// AVX-512 twins run 8 and 16 blocks of a row side by side, each block through
// the same operations in the same order (psnr_hvs_blocks.h), and add the
// terms in libvmaf's order: the same bits (the twin harness checks it).
using PlaneSumFn = PlaneSum (*)(const PlaneView& ref, const PlaneView& dist, unsigned bpc,
                                const float (&csf)[8][8]);
struct PsnrHvsDsp {
  const char* isa;
  PlaneSumFn plane_sum;
};
const PsnrHvsDsp& psnr_hvs_dsp_scalar();
// The table of one ISA (cpu::kAvx2, cpu::kAvx512), or nullptr when this build
// has none. It may only run where cpu::detected_flags() has the flag.
const PsnrHvsDsp* psnr_hvs_dsp_isa(unsigned cpu_flag);
// The best table allowed by `cpu_flags`.
const PsnrHvsDsp& psnr_hvs_dsp(unsigned cpu_flags);
#if defined(VMAFEXACT_X86_64_SIMD)
const PsnrHvsDsp& psnr_hvs_dsp_avx2();
const PsnrHvsDsp& psnr_hvs_dsp_avx512();
#endif

// One plane's sum with the table `dsp`; `csf_plane`: 0 for luma's table, 1
// and 2 for the chroma planes'.
PlaneSum plane_sum(const PlaneView& ref, const PlaneView& dist, unsigned bpc, unsigned csf_plane,
                   const PsnrHvsDsp& dsp);

// The per-pixel stage's result: each plane's sum.
struct PsnrHvsSums {
  std::array<PlaneSum, 3> planes{};
};

// The finishing function: each plane's score (libvmaf's `ret` after its
// divisions, as a double), then the four values in libvmaf's order:
// psnr_hvs_y, psnr_hvs_cb, psnr_hvs_cr, psnr_hvs.
std::array<double, 4> scores_of(const PsnrHvsSums& sums, unsigned bpc);

// The CPU stage, with the best table this CPU runs (chosen once).
class PsnrHvsCpuStage final : public FeatureStage<PsnrHvsSums> {
 public:
  PsnrHvsCpuStage();
  PsnrHvsSums compute(const PictureView& ref, const PictureView& dist, unsigned index) override;

 private:
  const PsnrHvsDsp* dsp_;
};

}  // namespace vmafexact::psnr_hvs
