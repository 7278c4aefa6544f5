#include "psnr_hvs/psnr_hvs.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>

#include "common/cpu.h"
#include "common/dispatch.h"

namespace vmafexact::psnr_hvs {

namespace {

// The contrast sensitivity tables of Xiph.Org's psnr_hvs.c (Daala; BSD
// licence, as libvmaf carries it in third_party/xiph): normalised inverse
// quantisation matrices for the 8x8 DCT at the point of transparency, for
// luma and for 4:2:0 Cb and Cr (libvmaf uses the chroma ones at any
// subsampling). The decimal figures are the published ones, rounded to float
// as the C initialisers round them.
constexpr float kCsfLuma[8][8] = {
    {1.6193873005, 2.2901594831, 2.08509755623, 1.48366094411, 1.00227514334, 0.678296995242,
     0.466224900598, 0.3265091542},
    {2.2901594831, 1.94321815382, 2.04793073064, 1.68731108984, 1.2305666963, 0.868920337363,
     0.61280991668, 0.436405793551},
    {2.08509755623, 2.04793073064, 1.34329019223, 1.09205635862, 0.875748795257, 0.670882927016,
     0.501731932449, 0.372504254596},
    {1.48366094411, 1.68731108984, 1.09205635862, 0.772819797575, 0.605636379554, 0.48309405692,
     0.380429446972, 0.295774038565},
    {1.00227514334, 1.2305666963, 0.875748795257, 0.605636379554, 0.448996256676, 0.352889268808,
     0.283006984131, 0.226951348204},
    {0.678296995242, 0.868920337363, 0.670882927016, 0.48309405692, 0.352889268808, 0.27032073436,
     0.215017739696, 0.17408067321},
    {0.466224900598, 0.61280991668, 0.501731932449, 0.380429446972, 0.283006984131, 0.215017739696,
     0.168869545842, 0.136153931001},
    {0.3265091542, 0.436405793551, 0.372504254596, 0.295774038565, 0.226951348204, 0.17408067321,
     0.136153931001, 0.109083846276},
};
constexpr float kCsfCb[8][8] = {
    {1.91113096927, 2.46074210438, 1.18284184739, 1.14982565193, 1.05017074788, 0.898018824055,
     0.74725392039, 0.615105596242},
    {2.46074210438, 1.58529308355, 1.21363250036, 1.38190029285, 1.33100189972, 1.17428548929,
     0.996404342439, 0.830890433625},
    {1.18284184739, 1.21363250036, 0.978712413627, 1.02624506078, 1.03145147362, 0.960060382087,
     0.849823426169, 0.731221236837},
    {1.14982565193, 1.38190029285, 1.02624506078, 0.861317501629, 0.801821139099, 0.751437590932,
     0.685398513368, 0.608694761374},
    {1.05017074788, 1.33100189972, 1.03145147362, 0.801821139099, 0.676555426187, 0.605503172737,
     0.55002013668, 0.495804539034},
    {0.898018824055, 1.17428548929, 0.960060382087, 0.751437590932, 0.605503172737, 0.514674450957,
     0.454353482512, 0.407050308965},
    {0.74725392039, 0.996404342439, 0.849823426169, 0.685398513368, 0.55002013668, 0.454353482512,
     0.389234902883, 0.342353999733},
    {0.615105596242, 0.830890433625, 0.731221236837, 0.608694761374, 0.495804539034, 0.407050308965,
     0.342353999733, 0.295530605237},
};
constexpr float kCsfCr[8][8] = {
    {2.03871978502, 2.62502345193, 1.26180942886, 1.11019789803, 1.01397751469, 0.867069376285,
     0.721500455585, 0.593906509971},
    {2.62502345193, 1.69112867013, 1.17180569821, 1.3342742857, 1.28513006198, 1.13381474809,
     0.962064122248, 0.802254508198},
    {1.26180942886, 1.17180569821, 0.944981930573, 0.990876405848, 0.995903384143, 0.926972725286,
     0.820534991409, 0.706020324706},
    {1.11019789803, 1.3342742857, 0.990876405848, 0.831632933426, 0.77418706195, 0.725539939514,
     0.661776842059, 0.587716619023},
    {1.01397751469, 1.28513006198, 0.995903384143, 0.77418706195, 0.653238524286, 0.584635025748,
     0.531064164893, 0.478717061273},
    {0.867069376285, 1.13381474809, 0.926972725286, 0.725539939514, 0.584635025748, 0.496936637883,
     0.438694579826, 0.393021669543},
    {0.721500455585, 0.962064122248, 0.820534991409, 0.661776842059, 0.531064164893, 0.438694579826,
     0.375820256136, 0.330555063063},
    {0.593906509971, 0.802254508198, 0.706020324706, 0.587716619023, 0.478717061273, 0.393021669543,
     0.330555063063, 0.285345396658},
};

const float (&csf_of(unsigned plane))[8][8] {
  return plane == 0 ? kCsfLuma : plane == 1 ? kCsfCb : kCsfCr;
}

}  // namespace

namespace scalar {
namespace {

#include "psnr_hvs/psnr_hvs_blocks.h"

}  // namespace
}  // namespace scalar

namespace {

PlaneSum plane_sum_one_by_one(const PlaneView& ref, const PlaneView& dist, unsigned bpc,
                              const float (&csf)[8][8]) {
  return scalar::plane_sum_fn<1>(ref, dist, bpc, csf);
}

constexpr simd::IsaTables<PsnrHvsDsp> kTables{
    psnr_hvs_dsp_scalar,
#if defined(VMAFEXACT_X86_64_SIMD)
    psnr_hvs_dsp_avx2,
    psnr_hvs_dsp_avx512,
#endif
};

}  // namespace

const PsnrHvsDsp& psnr_hvs_dsp_scalar() {
  static constexpr PsnrHvsDsp dsp{"scalar", plane_sum_one_by_one};
  return dsp;
}
const PsnrHvsDsp* psnr_hvs_dsp_isa(unsigned cpu_flag) { return kTables.isa(cpu_flag); }
const PsnrHvsDsp& psnr_hvs_dsp(unsigned cpu_flags) { return kTables.best(cpu_flags); }

void fdct8x8(const std::int32_t in[64], std::int32_t out[64]) {
  scalar::Coefficients<1> lanes_in, lanes_out;
  for (int i = 0; i < 64; ++i) lanes_in[i][0] = in[i];
  scalar::fdct8x8_lanes<1>(lanes_in, lanes_out);
  for (int i = 0; i < 64; ++i) out[i] = lanes_out[i][0];
}

PlaneSum plane_sum(const PlaneView& ref, const PlaneView& dist, unsigned bpc, unsigned csf_plane,
                   const PsnrHvsDsp& dsp) {
  return dsp.plane_sum(ref, dist, bpc, csf_of(csf_plane));
}

std::array<double, 4> scores_of(const PsnrHvsSums& sums, unsigned bpc) {
  const auto to_db = [](double score) { return 10 * (-1 * std::log10(1.0 * score)); };
  const int sample_max = (1 << bpc) - 1;
  double score[3];
  for (unsigned p = 0; p < 3; ++p) {
    // `ret /= pixels; ret /= samplemax * samplemax`: float divisions by ints.
    float ret = sums.planes[p].sum;
    ret /= static_cast<float>(sums.planes[p].terms);
    ret /= static_cast<float>(sample_max * sample_max);
    score[p] = ret;
  }
  const double combined = score[0] * .8 + .1 * (score[1] + score[2]);
  return {to_db(score[0]), to_db(score[1]), to_db(score[2]), to_db(combined)};
}

PsnrHvsCpuStage::PsnrHvsCpuStage() : dsp_(&psnr_hvs_dsp(cpu::flags())) {}

PsnrHvsSums PsnrHvsCpuStage::compute(const PictureView& ref, const PictureView& dist, unsigned) {
  PsnrHvsSums sums;
  for (unsigned p = 0; p < 3; ++p)
    sums.planes[p] = plane_sum(ref.planes[p], dist.planes[p], ref.bpc, p, *dsp_);
  return sums;
}

}  // namespace vmafexact::psnr_hvs
