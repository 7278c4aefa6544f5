#include "psnr_hvs/psnr_hvs.h"

#include <cmath>
#include <cstdlib>

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

// OD_DCT_RSHIFT(a, 1): half of a, rounded toward zero.
inline std::int32_t half(std::int32_t a) { return (a + (a < 0 ? 1 : 0)) >> 1; }

// One lifting step's product: (a * multiplier + 2^(shift-1)) >> shift, in
// int as Daala's; the right shift of a negative value is arithmetic.
inline std::int32_t scaled(std::int32_t a, std::int32_t multiplier, int shift) {
  return (a * multiplier + (1 << (shift - 1))) >> shift;
}

// Daala's od_bin_fdct8(): an 8-point type-II DCT in integer lifting steps.
// `x` is read with `stride`; the outputs go to y[0..7].
void fdct8(std::int32_t y[8], const std::int32_t* x, int stride) {
  // The inputs in Daala's permuted order.
  std::int32_t t0 = x[0 * stride], t4 = x[1 * stride], t2 = x[2 * stride], t6 = x[3 * stride];
  std::int32_t t7 = x[4 * stride], t3 = x[5 * stride], t5 = x[6 * stride], t1 = x[7 * stride];
  // +1/-1 butterflies.
  t1 = t0 - t1;
  const std::int32_t t1h = half(t1);
  t0 -= t1h;
  t4 += t5;
  const std::int32_t t4h = half(t4);
  t5 -= t4h;
  t3 = t2 - t3;
  t2 -= half(t3);
  t6 += t7;
  const std::int32_t t6h = half(t6);
  t7 = t6h - t7;
  // The embedded 4-point DCT-II.
  t0 += t6h;
  t6 = t0 - t6;
  t2 = t4h - t2;
  t4 = t2 - t4;
  // Its 2-point DCT-II: tan(pi/8) and sin(pi/4) rotations.
  t0 -= scaled(t4, 13573, 15);
  t4 += scaled(t0, 11585, 14);
  t0 -= scaled(t4, 13573, 15);
  // Its 2-point DST-IV (3 pi / 8).
  t6 -= scaled(t2, 21895, 15);
  t2 += scaled(t6, 15137, 14);
  t6 -= scaled(t2, 21895, 15);
  // The embedded 4-point DST-IV.
  t3 += scaled(t5, 19195, 15);
  t5 += scaled(t3, 11585, 14);
  t3 -= scaled(t5, 7489, 13);
  t7 = half(t5) - t7;
  t5 -= t7;
  t3 = t1h - t3;
  t1 -= t3;
  // The pi/16 and 3 pi/16 rotations.
  t7 += scaled(t1, 3227, 15);
  t1 -= scaled(t7, 6393, 15);
  t7 += scaled(t1, 3227, 15);
  t5 += scaled(t3, 2485, 13);
  t3 -= scaled(t5, 18205, 15);
  t5 += scaled(t3, 2485, 13);
  y[0] = t0, y[1] = t1, y[2] = t2, y[3] = t3, y[4] = t4, y[5] = t5, y[6] = t6, y[7] = t7;
}

// One 8x8 block of both pictures, samples as Daala's od_coeff.
struct Block {
  std::int32_t src[64];
  std::int32_t dst[64];
};

template <class Sample>
void load_block(const PlaneView& ref, const PlaneView& dist, unsigned x, unsigned y, Block& block) {
  for (unsigned i = 0; i < kBlock; ++i) {
    const Sample* r = ref.row<Sample>(y + i) + x;
    const Sample* d = dist.row<Sample>(y + i) + x;
    for (unsigned j = 0; j < kBlock; ++j) {
      block.src[i * 8 + j] = r[j];
      block.dst[i * 8 + j] = d[j];
    }
  }
}

// The quadrant of the block a sample counts to in the 4x4 means and variances.
constexpr int quadrant(int i, int j) { return ((i & 12) >> 2) + ((j & 12) >> 1); }

// A block's global variance turned into the ratio of its quadrants' variances
// to it, as calc_psnrhvs() forms it: every step in float, in its order.
float variance_ratio(const std::int32_t* coeff) {
  float global_mean = 0;
  float means[4] = {0, 0, 0, 0};
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j) {
      global_mean += coeff[i * 8 + j];
      means[quadrant(i, j)] += coeff[i * 8 + j];
    }
  global_mean /= 64.f;
  for (float& mean : means) mean /= 16.f;
  float global_var = 0;
  float vars[4] = {0, 0, 0, 0};
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j) {
      const int q = quadrant(i, j);
      global_var += (coeff[i * 8 + j] - global_mean) * (coeff[i * 8 + j] - global_mean);
      vars[q] += (coeff[i * 8 + j] - means[q]) * (coeff[i * 8 + j] - means[q]);
    }
  global_var *= 1 / 63.f * 64;
  for (float& var : vars) var *= 1 / 15.f * 16;
  if (global_var > 0) global_var = (vars[0] + vars[1] + vars[2] + vars[3]) / global_var;
  return global_var;
}

// The masking weights: (csf * 0.3885746225901003)^2, in double, rounded to float.
struct Mask {
  float weight[8][8];
  explicit Mask(const float (&csf)[8][8]) {
    for (int i = 0; i < 8; ++i)
      for (int j = 0; j < 8; ++j)
        weight[i][j] =
            static_cast<float>((csf[i][j] * 0.3885746225901003) * (csf[i][j] * 0.3885746225901003));
  }
};

// A block's AC energy weighted by the mask, scaled by its variance ratio:
// sqrt(energy * ratio) / 32 (the root in double, the result a float).
float contrast_mask(const std::int32_t* dct, float ratio, const Mask& mask) {
  float energy = 0;
  for (int i = 0; i < 8; ++i)
    for (int j = (i == 0); j < 8; ++j)
      energy += static_cast<float>(dct[i * 8 + j] * dct[i * 8 + j]) * mask.weight[i][j];
  return static_cast<float>(std::sqrt(static_cast<double>(energy * ratio)) / 32.f);
}

template <class Sample>
PlaneSum plane_sum_of(const PlaneView& ref, const PlaneView& dist, const float (&csf)[8][8]) {
  const Mask mask(csf);
  PlaneSum total;
  const int w = static_cast<int>(ref.width), h = static_cast<int>(ref.height);
  Block block;
  std::int32_t dct_src[64], dct_dst[64];
  for (int y = 0; y < h - 7; y += kStep)
    for (int x = 0; x < w - 7; x += kStep) {
      load_block<Sample>(ref, dist, static_cast<unsigned>(x), static_cast<unsigned>(y), block);
      const float src_ratio = variance_ratio(block.src);
      const float dst_ratio = variance_ratio(block.dst);
      fdct8x8(block.src, dct_src);
      fdct8x8(block.dst, dct_dst);
      float masking = contrast_mask(dct_src, src_ratio, mask);
      const float dst_masking = contrast_mask(dct_dst, dst_ratio, mask);
      if (dst_masking > masking) masking = dst_masking;
      for (int i = 0; i < 8; ++i)
        for (int j = 0; j < 8; ++j) {
          float err = static_cast<float>(std::abs(dct_src[i * 8 + j] - dct_dst[i * 8 + j]));
          if (i != 0 || j != 0) {
            const float threshold = masking / mask.weight[i][j];
            err = err < threshold ? 0 : err - threshold;
          }
          total.sum += (err * csf[i][j]) * (err * csf[i][j]);
          ++total.terms;
        }
    }
  return total;
}

}  // namespace

void fdct8x8(const std::int32_t in[64], std::int32_t out[64]) {
  // Columns into the rows of `z`, then z's columns into out's rows.
  std::int32_t z[64];
  for (int i = 0; i < 8; ++i) fdct8(z + 8 * i, in + i, 8);
  for (int i = 0; i < 8; ++i) fdct8(out + 8 * i, z + i, 8);
}

PlaneSum plane_sum(const PlaneView& ref, const PlaneView& dist, unsigned bpc, unsigned csf_plane) {
  return bpc == 8 ? plane_sum_of<std::uint8_t>(ref, dist, csf_of(csf_plane))
                  : plane_sum_of<std::uint16_t>(ref, dist, csf_of(csf_plane));
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

PsnrHvsSums PsnrHvsCpuStage::compute(const PictureView& ref, const PictureView& dist, unsigned) {
  PsnrHvsSums sums;
  for (unsigned p = 0; p < 3; ++p)
    sums.planes[p] = plane_sum(ref.planes[p], dist.planes[p], ref.bpc, p);
  return sums;
}

}  // namespace vmafexact::psnr_hvs
