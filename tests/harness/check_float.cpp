// The float extractors (float_motion, float_vif, float_adm, float_psnr, float_ansnr,
// float_moment; libvmaf's float_*.c) have no SIMD or CUDA twins yet: their one twin is the
// scalar stage itself, checked here to read only its samples.
// Each is scored on pictures of awkward sizes (its minimum, odd sides) held in TestPlanes whose
// padding and guards hold a pattern; a second run with another pattern must give the same bits, and
// no guard byte may change.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "common/feature_collector.h"
#include "harness.h"
#include "psnr_hvs/psnr_hvs.h"
#include "registry.h"

using namespace vmafexact;
using namespace vmafexact::harness;

namespace {

struct Size {
  unsigned w, h;
};

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
  std::vector<Size> sizes = {{8, 8}, {15, 9}, {64, 15}, {113, 17}, {120, 22}, {241, 30}};
  if (full()) sizes.insert(sizes.end(), {{1920, 1080}, {3840, 2160}});  // --full
  for (unsigned bpc : {8u, 10u, 12u})
    for (const Size size : sizes)
      for (test::Fill fill : {test::Fill::kRandom, test::Fill::kExtremes, test::Fill::kFullRange}) {
        test::TestPlane ref_plane(size.w, size.h, bpc, 3), dist_plane(size.w, size.h, bpc, 5);
        for (unsigned y = 0; y < size.h; ++y)
          for (unsigned x = 0; x < size.w; ++x) {
            ref_plane.set(x, y, test::sample_of(rng_, fill, bpc, bpc > 8 ? 2 : 1));
            // Mostly near the reference, as a distorted picture is.
            const std::uint32_t near = std::min<std::uint32_t>(
                ref_plane.get(x, y) + static_cast<std::uint32_t>(rng_() % 9), (1u << bpc) - 1);
            dist_plane.set(x, y,
                           rng_() % 4 ? near : test::sample_of(rng_, fill, bpc, bpc > 8 ? 2 : 1));
          }
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
