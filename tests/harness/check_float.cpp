// The float extractors (float_motion, float_vif, float_adm, float_psnr, float_ansnr,
// float_moment, psnr_hvs, ciede; libvmaf's float_*.c and others) have no CUDA twins:
// each stage is checked here to read only its samples, and the SIMD twins of psnr_hvs,
// float_vif and float_adm against their scalar references.
// Each is scored on pictures of awkward sizes (its minimum, odd sides) held in TestPlanes whose
// padding and guards hold a pattern; a second run with another pattern must give the same bits, and
// no guard byte may change.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "common/feature_collector.h"
#include "common/float_plane.h"
#include "float_adm/float_adm.h"
#include "float_vif/float_vif.h"
#include "harness.h"
#include "psnr_hvs/psnr_hvs.h"
#include "registry.h"
#include "sizes_and_frames.h"

using namespace vmafexact;
using namespace vmafexact::harness;

namespace {

// A picture of TestPlanes: luma only, or with chroma planes of libvmaf's sizes.
struct TestFrame {
  std::vector<test::TestPlane> planes;
  ChromaFormat chroma;
  PictureView view() const {
    PictureView picture = planes[0].view();
    picture.chroma = chroma;
    for (std::size_t p = 1; p < planes.size(); ++p) picture.planes[p] = planes[p].plane();
    return picture;
  }
};

// Every score of `feature` over `frames` reference/distorted pairs.
FeatureCollector score_frames(const char* feature, const FeatureOptions& options,
                              std::vector<TestFrame>& ref, std::vector<TestFrame>& dist) {
  auto extractor = make_feature_extractor(feature, options);
  const auto& luma = ref[0].planes[0];
  extractor->init({luma.width(), luma.height(), luma.bpc(), ref[0].chroma});
  FeatureCollector scores;
  for (unsigned i = 0; i < ref.size(); ++i)
    extractor->extract(ref[i].view(), dist[i].view(), i, scores);
  extractor->flush(scores);
  return scores;
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }
bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// The scalar stage of `feature` at each size and depth, guards painted twice.
void check_reads_only_samples(const char* feature, const FeatureOptions& options,
                              const std::vector<Size>& sizes,
                              ChromaFormat chroma = ChromaFormat::k400,
                              std::vector<unsigned> depths = {8u, 10u, 16u}) {
  std::mt19937_64 rng(seed() ^ 0xf10a7);
  for (const Size size : sizes)
    for (unsigned bpc : depths) {
      SCOPED_TRACE(std::to_string(size.w) + "x" + std::to_string(size.h) + " " +
                   std::to_string(bpc) + "-bit");
      std::vector<TestFrame> ref, dist;
      const unsigned planes = chroma == ChromaFormat::k400 ? 1 : 3;
      for (unsigned f = 0; f < 3; ++f) {
        ref.push_back({{}, chroma});
        dist.push_back({{}, chroma});
        for (unsigned p = 0; p < planes; ++p) {
          const unsigned w = p ? chroma_plane_width(size.w, chroma) : size.w;
          const unsigned h = p ? chroma_plane_height(size.h, chroma) : size.h;
          ref.back().planes.emplace_back(w, h, bpc, 5);
          dist.back().planes.emplace_back(w, h, bpc, 2);
          for (unsigned y = 0; y < h; ++y)
            for (unsigned x = 0; x < w; ++x) {
              ref.back().planes.back().set(
                  x, y, test::sample_of(rng, test::Fill::kRandom, bpc, bpc > 8 ? 2 : 1));
              dist.back().planes.back().set(
                  x, y, test::sample_of(rng, test::Fill::kRandom, bpc, bpc > 8 ? 2 : 1));
            }
        }
      }
      const FeatureCollector first = score_frames(feature, options, ref, dist);
      for (unsigned f = 0; f < ref.size(); ++f)
        for (unsigned p = 0; p < planes; ++p) {
          ref[f].planes[p].repaint_guards(0x5eed + f + 16 * p);
          dist[f].planes[p].repaint_guards(~(0x5eed + f + 16 * p));
        }
      const FeatureCollector second = score_frames(feature, options, ref, dist);
      for (unsigned f = 0; f < ref.size(); ++f)
        for (unsigned p = 0; p < planes; ++p) {
          EXPECT_TRUE(guards_intact(ref[f].planes[p], "reference"));
          EXPECT_TRUE(guards_intact(dist[f].planes[p], "distorted"));
        }
      ASSERT_EQ(first.names(), second.names());
      for (const auto& name : first.names())
        for (unsigned f = 0; f < ref.size(); ++f) {
          const auto a = first.score(name, f), b = second.score(name, f);
          ASSERT_EQ(a.has_value(), b.has_value()) << name;
          if (a) {
            EXPECT_TRUE(same_bits(*a, *b)) << name << " frame " << f << ": " << *a << " vs " << *b;
          }
        }
    }
}

class FloatStage : public ::testing::TestWithParam<std::string> {};
std::string twin_name(const ::testing::TestParamInfo<std::string>& info) { return info.param; }

}  // namespace

// ---- float_motion

class FloatMotionStage : public FloatStage {};

TEST_P(FloatMotionStage, ReadsOnlyItsSamples) {
  check_reads_only_samples("float_motion", {}, {{3, 3}, {4, 7}, {17, 9}, {33, 31}});
  check_reads_only_samples("float_motion", {{"motion_filter_size", "3"}}, {{2, 2}, {5, 3}});
  check_reads_only_samples("float_motion", {{"motion_add_scale1", "true"}}, {{3, 3}, {23, 15}});
}

INSTANTIATE_TEST_SUITE_P(float_motion, FloatMotionStage, ::testing::Values("scalar"), twin_name);
HARNESS_FEATURE(float_motion);

// ---- float_vif

class FloatVifStage : public FloatStage {};

TEST_P(FloatVifStage, ReadsOnlyItsSamples) {
  check_reads_only_samples("float_vif", {{"debug", "true"}}, {{16, 16}, {17, 23}, {40, 33}});
  check_reads_only_samples("float_vif",
                           {{"vif_prescale", "1.5"}, {"vif_prescale_method", "bicubic"}},
                           {{11, 11}, {14, 12}});
  check_reads_only_samples(
      "float_vif", {{"vif_prescale", "0.75"}, {"vif_prescale_method", "lanczos4"}}, {{22, 22}});
}

INSTANTIATE_TEST_SUITE_P(float_vif, FloatVifStage, ::testing::Values("scalar"), twin_name);
HARNESS_FEATURE(float_vif);

// float_vif's SIMD twins (metrics/float_vif/float_vif_lanes.h): each row kernel
// against the scalar reference's on rows narrower than the lanes, as wide and
// wider with a tail, for every filter width libvmaf's kernel scales give; the
// statistic on values that take each of its branches; and compute_vif() whole.
HARNESS_DSP_FIXTURE(FloatVifTwin, float_vif::FloatVifDsp, float_vif::float_vif_dsp_scalar,
                    float_vif::float_vif_dsp_isa, 0x7669);

namespace {

// A luma sample as float_vif holds it: (sample / 1, 4, 16 or 256) - 128.
float vif_sample(std::mt19937_64& rng) {
  const unsigned divisor[] = {1, 4, 16, 256};
  const unsigned bpc_index = static_cast<unsigned>(rng() % 4);
  const unsigned top = (1u << (8 + 2 * bpc_index + (bpc_index == 3 ? 2 : 0))) - 1;
  const unsigned sample =
      rng() % 8 == 0 ? (rng() % 2 ? top : 0) : static_cast<unsigned>(rng() % (top + 1));
  return static_cast<float>(sample) / static_cast<float>(divisor[bpc_index]) - 128.0f;
}

}  // namespace

TEST_P(FloatVifTwin, RowKernels) {
  const unsigned widths[] = {1, 5, 8, 15, 16, 17, 31, 33, 64, 100, 257};
  for (const int taps_count : {3, 5, 9, 11, 17, 27, 33, 65}) {
    std::vector<float> taps(static_cast<std::size_t>(taps_count));
    for (auto& tap : taps) tap = static_cast<float>(rng_() % 100000) / 300000.0f;
    for (const unsigned width : widths) {
      // The vertical pass: one row per tap of each picture.
      std::vector<std::vector<float>> ref_samples(taps.size(), std::vector<float>(width)),
          dist_samples(taps.size(), std::vector<float>(width));
      std::vector<const float*> ref_rows, dist_rows;
      for (std::size_t k = 0; k < taps.size(); ++k) {
        for (unsigned j = 0; j < width; ++j) {
          const float r = vif_sample(rng_);
          ref_samples[k][j] = r;
          dist_samples[k][j] =
              rng_() % 3 ? r + static_cast<float>(rng_() % 9) - 4.0f : vif_sample(rng_);
        }
        ref_rows.push_back(ref_samples[k].data());
        dist_rows.push_back(dist_samples[k].data());
      }
      for (const bool moments : {false, true}) {
        std::vector<std::vector<float>> a(5, std::vector<float>(width, -1.0f)), b = a;
        float* a_out[5];
        float* b_out[5];
        for (int q = 0; q < 5; ++q) {
          a_out[q] = a[q].data();
          b_out[q] = b[q].data();
        }
        ref().vertical(taps.data(), taps_count, ref_rows.data(), dist_rows.data(), 0, width,
                       moments, a_out);
        twin().vertical(taps.data(), taps_count, ref_rows.data(), dist_rows.data(), 0, width,
                        moments, b_out);
        for (int q = 0; q < 5; ++q)
          for (unsigned j = 0; j < width; ++j)
            ASSERT_TRUE(same_bits(a[q][j], b[q][j]))
                << twin().isa << " vertical, " << taps_count << " taps, width " << width
                << ", output " << q << ", column " << j << ": " << a[q][j] << " vs " << b[q][j];
      }
      // The horizontal pass over the inner columns of a row with its sides.
      std::vector<float> row(width + taps.size());
      for (auto& x : row) x = vif_sample(rng_) * static_cast<float>(rng_() % 200) / 7.0f;
      const int half = taps_count / 2;
      std::vector<float> a(row.size(), -1.0f), b = a;
      const int end = static_cast<int>(width) + half;
      ref().horizontal(taps.data(), taps_count, row.data(), half, end, a.data());
      twin().horizontal(taps.data(), taps_count, row.data(), half, end, b.data());
      for (std::size_t j = 0; j < row.size(); ++j)
        ASSERT_TRUE(same_bits(a[j], b[j])) << twin().isa << " horizontal, " << taps_count
                                           << " taps, width " << width << ", column " << j;
    }
  }
}

TEST_P(FloatVifTwin, Statistic) {
  for (const unsigned width : {1u, 7u, 16u, 17u, 40u, 1000u}) {
    std::vector<std::vector<float>> rows(5, std::vector<float>(width));
    for (unsigned j = 0; j < width; ++j) {
      const float mu1 = vif_sample(rng_), mu2 = mu1 + static_cast<float>(rng_() % 21) - 10.0f;
      // Variances and covariance from none (flat) to large, of either sign,
      // around eps and around sigma_nsq: every branch of the statistic.
      const float scales[] = {0.0f, 1e-12f, 1e-10f, 1e-6f, 0.5f, 2.0f, 30.0f, 3000.0f};
      const float var1 = scales[rng_() % 8] * static_cast<float>(rng_() % 1000) / 500.0f;
      const float var2 = scales[rng_() % 8] * static_cast<float>(rng_() % 1000) / 500.0f;
      const float cov = (rng_() % 2 ? 1.0f : -1.0f) * scales[rng_() % 8] *
                        static_cast<float>(rng_() % 1000) / 500.0f;
      rows[0][j] = mu1;
      rows[1][j] = mu2;
      rows[2][j] = mu1 * mu1 + (rng_() % 16 ? var1 : -var1);
      rows[3][j] = mu2 * mu2 + (rng_() % 16 ? var2 : -var2);
      rows[4][j] = mu1 * mu2 + cov;
    }
    const float* in[5];
    for (int q = 0; q < 5; ++q) in[q] = rows[q].data();
    for (const double sigma_nsq : {2.0, 0.4, 1e-9}) {
      for (const float gain_limit : {100.0f, 1.0f}) {
        const float_vif::StatisticConstants constants{
            sigma_nsq, static_cast<float>(sigma_nsq * sigma_nsq / (255.0 * 255.0)), gain_limit};
        std::vector<float> num_a(width, -1.0f), den_a = num_a, num_b = num_a, den_b = num_a;
        ref().statistic(in, width, constants, num_a.data(), den_a.data());
        twin().statistic(in, width, constants, num_b.data(), den_b.data());
        for (unsigned j = 0; j < width; ++j) {
          ASSERT_TRUE(same_bits(num_a[j], num_b[j]))
              << twin().isa << " num, width " << width << ", sigma_nsq " << sigma_nsq
              << ", gain limit " << gain_limit << ", column " << j << ": " << num_a[j] << " vs "
              << num_b[j];
          ASSERT_TRUE(same_bits(den_a[j], den_b[j]))
              << twin().isa << " den, width " << width << ", column " << j;
        }
      }
    }
  }
}

TEST_P(FloatVifTwin, ComputeVif) {
  struct Case {
    Size size;
    double kernelscale;
  };
  std::vector<Case> cases = {{{16, 16}, 1.0},  {{40, 33}, 1.0},   {{64, 50}, 0.5},
                             {{173, 97}, 1.0}, {{200, 120}, 1.5}, {{97, 211}, 3.0}};
  if (full()) cases.push_back({{1920, 1080}, 1.0});  // --full
  // One workspace each through every case: sizes and filters change between them.
  float_vif::FloatVifWorkspace a_workspace, b_workspace;
  for (const Case& c : cases) {
    FloatPlane ref_plane(c.size.w, c.size.h), dist_plane(c.size.w, c.size.h);
    for (std::size_t i = 0; i < ref_plane.data.size(); ++i) {
      ref_plane.data[i] = vif_sample(rng_);
      dist_plane.data[i] =
          rng_() % 4 ? ref_plane.data[i] + static_cast<float>(rng_() % 7) - 3.0f : vif_sample(rng_);
    }
    float_vif::FloatVifParams params;
    params.kernelscale = c.kernelscale;
    params.enhn_gain_limit = rng_() % 2 ? 100.0 : 1.0;
    const auto a = float_vif::compute_vif(ref_plane, dist_plane, params, ref(), a_workspace);
    const auto b = float_vif::compute_vif(ref_plane, dist_plane, params, twin(), b_workspace);
    for (int s = 0; s < float_vif::kScales; ++s) {
      ASSERT_TRUE(same_bits(a.num[s], b.num[s]))
          << twin().isa << " " << c.size.w << "x" << c.size.h << " kernel scale " << c.kernelscale
          << ", scale " << s << " num: " << a.num[s] << " vs " << b.num[s];
      ASSERT_TRUE(same_bits(a.den[s], b.den[s])) << twin().isa << " scale " << s << " den";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(float_vif, FloatVifTwin, isa_values(), isa_param_name);

// ---- float_adm

class FloatAdmStage : public FloatStage {};

TEST_P(FloatAdmStage, ReadsOnlyItsSamples) {
  // 16x16 and 15x9: libvmaf's masking reads values earlier levels left in its
  // band buffers, which the stage keeps as libvmaf lays them out.
  check_reads_only_samples("float_adm", {{"debug", "true"}},
                           {{16, 16}, {15, 9}, {17, 17}, {41, 23}});
  check_reads_only_samples("float_adm", {{"adm_skip_scale0", "true"}, {"adm_p_norm", "2.5"}},
                           {{17, 17}, {33, 33}});
}

INSTANTIATE_TEST_SUITE_P(float_adm, FloatAdmStage, ::testing::Values("scalar"), twin_name);
HARNESS_FEATURE(float_adm);

// float_adm's SIMD twins (metrics/float_adm/float_adm_lanes.h): the DWT's two passes,
// the decoupling, the CSF weighting and the masking terms of rows narrower than the lanes, as wide
// and wider with a tail, against the scalar reference's, on band values of every sign and size
// (zeros, the -eps that makes the divisor 0, values whose estimate leaves the normals, angles
// either side of the 1-degree test) and every enhancement-gain limit.
HARNESS_DSP_FIXTURE(FloatAdmTwin, float_adm::FloatAdmDsp, float_adm::float_adm_dsp_scalar,
                    float_adm::float_adm_dsp_isa, 0x61646d);

namespace {

float adm_band_value(std::mt19937_64& rng) {
  switch (rng() % 10) {
    case 0:
      return 0.0f;
    case 1:
      return -1e-30f;  // o + eps == 0
    case 2:
      return (rng() % 2 ? 1.0f : -1.0f) * 1e-36f * static_cast<float>(rng() % 1000);
    case 3:
      return (rng() % 2 ? 1.0f : -1.0f) * 3e37f * static_cast<float>(1 + rng() % 10);
    default:
      return (static_cast<float>(rng() % 2000001) - 1000000.0f) /
             static_cast<float>(1u << (rng() % 20));
  }
}

}  // namespace

TEST_P(FloatAdmTwin, Decouple) {
  for (const unsigned width : {1u, 5u, 8u, 15u, 16u, 17u, 33u, 250u, 1000u}) {
    std::vector<std::vector<float>> in(6, std::vector<float>(width));
    for (unsigned j = 0; j < width; ++j) {
      for (int theta = 0; theta < 3; ++theta) {
        in[theta][j] = adm_band_value(rng_);
        // The distorted band: mostly near the reference's, at times along it
        // (the angle test) or anything.
        const float o = in[theta][j];
        switch (rng_() % 4) {
          case 0:
            in[3 + theta][j] = adm_band_value(rng_);
            break;
          case 1:
            in[3 + theta][j] = o * static_cast<float>(rng_() % 300) / 100.0f;
            break;
          default:
            in[3 + theta][j] = o + static_cast<float>(rng_() % 41) - 20.0f;
        }
      }
    }
    for (const double gain : {100.0, 1.0, 1.2, 0.5}) {
      std::vector<std::vector<float>> a(6, std::vector<float>(width, -1.0f)), b = a;
      float_adm::DecoupleRow row_a, row_b;
      for (int theta = 0; theta < 3; ++theta) {
        row_a.ref[theta] = row_b.ref[theta] = in[theta].data();
        row_a.dist[theta] = row_b.dist[theta] = in[3 + theta].data();
        row_a.restored[theta] = a[theta].data();
        row_a.additive[theta] = a[3 + theta].data();
        row_b.restored[theta] = b[theta].data();
        row_b.additive[theta] = b[3 + theta].data();
      }
      // Columns 1..width-1: the first one must stay as it was.
      const int begin = width > 1 ? 1 : 0;
      ref().decouple(row_a, begin, static_cast<int>(width), gain, float_adm::Divider::kReference);
      twin().decouple(row_b, begin, static_cast<int>(width), gain, float_adm::Divider::kReference);
      for (int q = 0; q < 6; ++q)
        for (unsigned j = 0; j < width; ++j)
          ASSERT_TRUE(same_bits(a[q][j], b[q][j]))
              << twin().isa << " decouple, width " << width << ", gain " << gain << ", output " << q
              << ", column " << j << ": " << a[q][j] << " vs " << b[q][j] << " (o " << in[q % 3][j]
              << ", t " << in[3 + q % 3][j] << ")";
    }
  }
}

TEST_P(FloatAdmTwin, Cm) {
  for (const unsigned width : {1u, 5u, 8u, 15u, 16u, 17u, 33u, 250u, 1000u}) {
    // Columns 1..width of rows width + 2 wide: every neighbour inside.
    const std::size_t n = width + 2;
    std::vector<float> src[3], angles[3], flt[3][3];
    for (int theta = 0; theta < 3; ++theta) {
      src[theta].resize(n);
      angles[theta].resize(n);
      for (std::size_t j = 0; j < n; ++j) {
        src[theta][j] = adm_band_value(rng_) / 1e30f;
        angles[theta][j] = adm_band_value(rng_) / 1e30f;
      }
      for (int a = 0; a < 3; ++a) {
        flt[theta][a].resize(n);
        for (std::size_t j = 0; j < n; ++j)
          flt[theta][a][j] =
              std::fabs(adm_band_value(rng_)) / static_cast<float>(30 << (rng_() % 8));
      }
    }
    for (const double p_norm : {3.0, 2.5}) {
      for (const bool masking : {true, false}) {
        const float rfactor[3] = {static_cast<float>(rng_() % 1000) / 97.0f,
                                  static_cast<float>(rng_() % 1000) / 97.0f, 1.0f / 3.0f};
        std::vector<float> a_terms[3], b_terms[3];
        float_adm::CmRow row_a, row_b;
        for (int theta = 0; theta < 3; ++theta) {
          a_terms[theta].assign(n, -1.0f);
          b_terms[theta].assign(n, -1.0f);
          row_a.src[theta] = row_b.src[theta] = src[theta].data();
          row_a.angles[theta] = row_b.angles[theta] = angles[theta].data();
          for (int a = 0; a < 3; ++a)
            row_a.flt[theta][a] = row_b.flt[theta][a] = flt[theta][a].data();
          row_a.terms[theta] = a_terms[theta].data();
          row_b.terms[theta] = b_terms[theta].data();
        }
        ref().cm(row_a, 1, static_cast<int>(width) + 1, rfactor, masking, p_norm);
        twin().cm(row_b, 1, static_cast<int>(width) + 1, rfactor, masking, p_norm);
        for (int theta = 0; theta < 3; ++theta)
          for (std::size_t j = 0; j < n; ++j)
            ASSERT_TRUE(same_bits(a_terms[theta][j], b_terms[theta][j]))
                << twin().isa << " cm, width " << width << ", p " << p_norm << ", masking "
                << masking << ", theta " << theta << ", column " << j << ": " << a_terms[theta][j]
                << " vs " << b_terms[theta][j];
      }
    }
  }
}

TEST_P(FloatAdmTwin, Csf) {
  for (const unsigned width : {1u, 5u, 8u, 15u, 16u, 17u, 33u, 250u, 1000u}) {
    std::vector<float> src(width);
    for (auto& x : src) x = adm_band_value(rng_);
    for (const float factor : {1.0f / 3.0f, 0.0f, static_cast<float>(rng_() % 10000) / 77.0f}) {
      std::vector<float> a_dst(width, -1.0f), a_flt = a_dst, b_dst = a_dst, b_flt = a_dst;
      const int begin = width > 2 ? 1 : 0;
      ref().csf(src.data(), a_dst.data(), a_flt.data(), begin, static_cast<int>(width), factor);
      twin().csf(src.data(), b_dst.data(), b_flt.data(), begin, static_cast<int>(width), factor);
      for (unsigned j = 0; j < width; ++j) {
        ASSERT_TRUE(same_bits(a_dst[j], b_dst[j]))
            << twin().isa << " csf, width " << width << ", column " << j;
        ASSERT_TRUE(same_bits(a_flt[j], b_flt[j]))
            << twin().isa << " csf |x|/30, width " << width << ", column " << j << ": " << a_flt[j]
            << " vs " << b_flt[j];
      }
    }
  }
}

TEST_P(FloatAdmTwin, Dwt) {
  for (const int width : {1, 3, 4, 5, 8, 15, 16, 17, 33, 34, 35, 64, 250, 1001}) {
    std::vector<float> source[4];
    for (auto& row : source) {
      row.resize(static_cast<std::size_t>(width));
      for (auto& x : row)
        x = rng_() % 5 ? static_cast<float>(rng_() % 65536) / 256.0f - 128.0f
                       : adm_band_value(rng_);
    }
    const float* const rows[4] = {source[0].data(), source[1].data(), source[2].data(),
                                  source[3].data()};
    for (const bool lo_only : {false, true}) {
      // The vertical pass.
      std::vector<float> a_lo(static_cast<std::size_t>(width), -1.0f), a_hi = a_lo, b_lo = a_lo,
                                                                       b_hi = a_lo;
      ref().dwt_vertical(rows, width, lo_only, a_lo.data(), a_hi.data());
      twin().dwt_vertical(rows, width, lo_only, b_lo.data(), b_hi.data());
      for (int j = 0; j < width; ++j) {
        ASSERT_TRUE(same_bits(a_lo[j], b_lo[j]))
            << twin().isa << " dwt vertical lo, width " << width << ", column " << j;
        ASSERT_TRUE(same_bits(a_hi[j], b_hi[j]))
            << twin().isa << " dwt vertical hi, width " << width << ", column " << j;
      }
      // The horizontal pass over the outputs that mirror no column.
      const int outputs = (width + 1) / 2;
      const int end = width >= 3 ? (width - 3) / 2 + 1 : 1;
      std::vector<float> a_bands[4], b_bands[4];
      for (int band = 0; band < 4; ++band) {
        a_bands[band].assign(static_cast<std::size_t>(outputs), -1.0f);
        b_bands[band].assign(static_cast<std::size_t>(outputs), -1.0f);
      }
      float* const a_out[4] = {a_bands[0].data(), a_bands[1].data(), a_bands[2].data(),
                               a_bands[3].data()};
      float* const b_out[4] = {b_bands[0].data(), b_bands[1].data(), b_bands[2].data(),
                               b_bands[3].data()};
      ref().dwt_horizontal(source[0].data(), source[1].data(), 1, end, lo_only, a_out);
      twin().dwt_horizontal(source[0].data(), source[1].data(), 1, end, lo_only, b_out);
      for (int band = 0; band < 4; ++band)
        for (int j = 0; j < outputs; ++j)
          ASSERT_TRUE(same_bits(a_bands[band][j], b_bands[band][j]))
              << twin().isa << " dwt horizontal, width " << width << ", band " << band
              << ", output " << j << ": " << a_bands[band][j] << " vs " << b_bands[band][j];
    }
  }
}

INSTANTIATE_TEST_SUITE_P(float_adm, FloatAdmTwin, isa_values(), isa_param_name);

// ---- float_psnr, float_ansnr, float_moment (luma only)

class FloatPsnrStage : public FloatStage {};

TEST_P(FloatPsnrStage, ReadsOnlyItsSamples) {
  check_reads_only_samples("float_psnr", {}, {{1, 1}, {3, 2}, {17, 9}, {33, 31}});
}

INSTANTIATE_TEST_SUITE_P(float_psnr, FloatPsnrStage, ::testing::Values("scalar"), twin_name);
HARNESS_FEATURE(float_psnr);

class FloatAnsnrStage : public FloatStage {};

TEST_P(FloatAnsnrStage, ReadsOnlyItsSamples) {
  // 3x3 and 4x5: every column and row is a mirrored border of the 5x5 filter.
  check_reads_only_samples("float_ansnr", {}, {{3, 3}, {4, 5}, {17, 9}, {33, 31}});
}

INSTANTIATE_TEST_SUITE_P(float_ansnr, FloatAnsnrStage, ::testing::Values("scalar"), twin_name);
HARNESS_FEATURE(float_ansnr);

class FloatMomentStage : public FloatStage {};

TEST_P(FloatMomentStage, ReadsOnlyItsSamples) {
  check_reads_only_samples("float_moment", {}, {{1, 1}, {2, 3}, {17, 9}, {33, 31}});
}

INSTANTIATE_TEST_SUITE_P(float_moment, FloatMomentStage, ::testing::Values("scalar"), twin_name);
HARNESS_FEATURE(float_moment);

// ---- psnr_hvs and ciede (every plane)

class PsnrHvsStage : public FloatStage {};

TEST_P(PsnrHvsStage, ReadsOnlyItsSamples) {
  check_reads_only_samples("psnr_hvs", {}, {{16, 16}, {17, 23}, {40, 33}}, ChromaFormat::k420,
                           {8u, 10u, 12u});
  check_reads_only_samples("psnr_hvs", {}, {{8, 8}, {15, 9}}, ChromaFormat::k444, {8u, 12u});
  check_reads_only_samples("psnr_hvs", {}, {{17, 8}}, ChromaFormat::k422, {10u});
}

INSTANTIATE_TEST_SUITE_P(psnr_hvs, PsnrHvsStage, ::testing::Values("scalar"), twin_name);
HARNESS_FEATURE(psnr_hvs);

class CiedeStage : public FloatStage {};

TEST_P(CiedeStage, ReadsOnlyItsSamples) {
  check_reads_only_samples("ciede", {}, {{2, 2}, {18, 12}}, ChromaFormat::k420);
  check_reads_only_samples("ciede", {}, {{1, 1}, {7, 5}}, ChromaFormat::k444);
  // 4:2:2 reads run on into the next rows and libvmaf's padding: none of the test planes' own.
  check_reads_only_samples("ciede", {}, {{33, 9}, {100, 4}}, ChromaFormat::k422, {8u, 16u});
}

INSTANTIATE_TEST_SUITE_P(ciede, CiedeStage, ::testing::Values("scalar"), twin_name);
HARNESS_FEATURE(ciede);

// psnr_hvs's SIMD twins (metrics/psnr_hvs/psnr_hvs_blocks.h): 8 or 16 blocks of
// a row side by side, against the scalar reference's blocks one by one, per
// plane table, over rows of fewer blocks than lanes, exactly as many, and
// more with a tail.
HARNESS_DSP_FIXTURE(PsnrHvsTwin, psnr_hvs::PsnrHvsDsp, psnr_hvs::psnr_hvs_dsp_scalar,
                    psnr_hvs::psnr_hvs_dsp_isa, 0x4875);

TEST_P(PsnrHvsTwin, PlaneSums) {
  const std::vector<Size> sizes = sizes_with_full(
      {{8, 8}, {15, 9}, {64, 15}, {113, 17}, {120, 22}, {241, 30}}, {{1920, 1080}, {3840, 2160}});
  for (unsigned bpc : {8u, 10u, 12u})
    for (const Size size : sizes)
      for (test::Fill fill : {test::Fill::kRandom, test::Fill::kExtremes, test::Fill::kFullRange}) {
        test::TestPlane ref_plane(size.w, size.h, bpc, 3), dist_plane(size.w, size.h, bpc, 5);
        paint_pair(ref_plane, dist_plane, [&](unsigned, unsigned) {
          const std::uint32_t r = test::sample_of(rng_, fill, bpc, bpc > 8 ? 2 : 1);
          // Mostly near the reference, as a distorted picture is.
          const std::uint32_t near =
              std::min<std::uint32_t>(r + static_cast<std::uint32_t>(rng_() % 9), (1u << bpc) - 1);
          return std::pair{r,
                           rng_() % 4 ? near : test::sample_of(rng_, fill, bpc, bpc > 8 ? 2 : 1)};
        });
        for (unsigned csf = 0; csf < 3; ++csf) {
          const auto a =
              psnr_hvs::plane_sum(ref_plane.plane(), dist_plane.plane(), bpc, csf, ref());
          const auto b =
              psnr_hvs::plane_sum(ref_plane.plane(), dist_plane.plane(), bpc, csf, twin());
          ASSERT_EQ(a.terms, b.terms);
          ASSERT_TRUE(same_bits(a.sum, b.sum))
              << twin().isa << " " << size.w << "x" << size.h << " " << bpc << "-bit csf " << csf
              << ": " << a.sum << " vs " << b.sum;
        }
      }
}

INSTANTIATE_TEST_SUITE_P(psnr_hvs, PsnrHvsTwin, isa_values(), isa_param_name);
