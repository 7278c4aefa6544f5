// Unit tests of metrics/float_adm/: libvmaf 3.2.0's "float_adm".
//
// The golden values (golden/float_adm.inc) are libvmaf's own, printed with
// %.17g from its portable C build on float_clip.h's clips: 8, 10, 12 and 16
// bits, odd sizes, 16x16 (where libvmaf's masking reads values earlier levels
// left in its buffers) and every option.

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "common/error.h"
#include "float_adm/float_adm.h"
#include "float_adm/float_adm_extractor.h"
#include "float_adm/rcp_estimate.h"
#include "float_golden.h"
#include "registry.h"

using namespace vmafexact;
using namespace vmafexact::test;

namespace {

const std::vector<GoldenCase>& golden_cases() {
  static const std::vector<GoldenCase> cases = {
#include "golden/float_adm.inc"
  };
  return cases;
}

}  // namespace

TEST(FloatAdm, EveryGoldenValueIsLibvmafs) { expect_every_golden("float_adm", golden_cases(), 24); }

// Where libvmaf's DWT or masking reads memory it never wrote, valgrind's
// memcheck reports uninitialised values in libvmaf's C build; the dry run
// refuses exactly those sizes. These 90 verdicts were taken with valgrind on
// libvmaf (a private driver scoring two frames of each size, default options):
// below 17 only widths of 15 and 16 with heights of 9 and more are defined.
TEST(FloatAdm, RefusesTheSizesWhereLibvmafReadsUnwrittenMemory) {
  struct Verdict {
    unsigned w, h;
    bool libvmaf_defined;
  };
  const Verdict verdicts[] = {
      {2, 2, false},   {2, 5, false},   {2, 8, false},   {2, 9, false},    {2, 12, false},
      {2, 15, false},  {2, 16, false},  {2, 17, false},  {5, 2, false},    {5, 5, false},
      {5, 8, false},   {5, 9, false},   {5, 12, false},  {5, 15, false},   {5, 16, false},
      {5, 17, false},  {8, 2, false},   {8, 5, false},   {8, 8, false},    {8, 9, false},
      {8, 12, false},  {8, 15, false},  {8, 16, false},  {8, 17, false},   {9, 2, false},
      {9, 5, false},   {9, 8, false},   {9, 9, false},   {9, 12, false},   {9, 15, false},
      {9, 16, false},  {9, 17, false},  {12, 2, false},  {12, 5, false},   {12, 8, false},
      {12, 9, false},  {12, 12, false}, {12, 15, false}, {12, 16, false},  {12, 17, false},
      {14, 2, false},  {14, 5, false},  {14, 8, false},  {14, 9, false},   {14, 12, false},
      {14, 15, false}, {14, 16, false}, {14, 17, false}, {15, 2, false},   {15, 5, false},
      {15, 8, false},  {15, 9, true},   {15, 12, true},  {15, 15, true},   {15, 16, true},
      {15, 17, true},  {16, 2, false},  {16, 5, false},  {16, 8, false},   {16, 9, true},
      {16, 12, true},  {16, 15, true},  {16, 16, true},  {16, 17, true},   {17, 2, false},
      {17, 5, false},  {17, 8, false},  {17, 9, true},   {17, 12, true},   {17, 15, true},
      {17, 16, true},  {17, 17, true},  {18, 2, false},  {18, 5, false},   {18, 8, false},
      {18, 9, true},   {18, 12, true},  {18, 15, true},  {18, 16, true},   {18, 17, true},
      {33, 2, false},  {33, 5, false},  {33, 8, false},  {33, 9, true},    {33, 12, true},
      {33, 15, true},  {33, 16, true},  {33, 17, true},  {100, 12, false}, {20, 10, true},
  };
  for (const auto& v : verdicts) {
    SCOPED_TRACE(std::to_string(v.w) + "x" + std::to_string(v.h));
    EXPECT_EQ(float_adm::FloatAdmComputer(v.w, v.h, {}, true).valid(), v.libvmaf_defined);
    const std::string error = init_error("float_adm", {v.w, v.h, 8, ChromaFormat::k420});
    if (v.libvmaf_defined) {
      EXPECT_EQ(error, "");
    } else {
      EXPECT_NE(error.find("float_adm: libvmaf reads memory it never wrote on " +
                           std::to_string(v.w) + "x" + std::to_string(v.h)),
                std::string::npos)
          << error;
      EXPECT_NE(error.find("at least 17x17"), std::string::npos) << error;
    }
  }
}

TEST(FloatAdm, OptionsChangeWhichSizesAreDefined) {
  // adm_skip_scale0 leaves level 0's decoupled and CSF bands unwritten, which
  // the last levels' reads then reach: valgrind flags 16x16 and 20x10 too.
  float_adm::FloatAdmParams skip;
  skip.skip_scale0 = true;
  EXPECT_FALSE(float_adm::FloatAdmComputer(16, 16, skip, true).valid());
  EXPECT_FALSE(float_adm::FloatAdmComputer(20, 10, skip, true).valid());
  EXPECT_NE(init_error("float_adm", {16, 16, 8, ChromaFormat::k420}, {{"adm_skip_scale0", "true"}}), "");
  EXPECT_EQ(init_error("float_adm", {17, 17, 8, ChromaFormat::k420}, {{"adm_skip_scale0", "true"}}), "");
}

TEST(FloatAdm, FromSeventeenEveryReadIsInsideTheBands) {
  // The extractor skips the dry run there; the dry run agrees.
  for (unsigned w = 17; w <= 70; w += 3)
    for (unsigned h = 17; h <= 70; h += 5) {
      EXPECT_TRUE(float_adm::FloatAdmComputer(w, h, {}, true).valid()) << w << "x" << h;
      float_adm::FloatAdmParams skip;
      skip.skip_scale0 = true;
      skip.bypass_cm = 1;
      EXPECT_TRUE(float_adm::FloatAdmComputer(w, h, skip, true).valid()) << w << "x" << h;
    }
  EXPECT_TRUE(float_adm::FloatAdmComputer(1920, 1080, {}, true).valid());
}

TEST(FloatAdm, RefusesAFrameWhoseAimLibvmafLeavesUndefined) {
  // With no noise weight a flat reference has no energy: libvmaf sets adm2 to
  // 1 and never writes aim.
  const Clip clip = make_float_clip({32, 32, 8, ChromaFormat::k420}, 1, 1);
  std::vector<std::uint8_t> flat(32 * 32, 128);
  PictureView ref = clip.ref_view(0);
  ref.planes[0].data = flat.data();
  auto extractor = make_feature_extractor("float_adm", {{"adm_noise_weight", "0"}});
  extractor->init(clip.format);
  FeatureCollector scores;
  try {
    extractor->extract(ref, clip.dist_view(0), 0, scores);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("float_adm: frame 0 has no reference energy"),
              std::string::npos)
        << e.what();
  }
  // With the default noise weight the same frame is scored.
  auto scored = make_feature_extractor("float_adm");
  scored->init(clip.format);
  scored->extract(ref, clip.dist_view(0), 0, scores);
  EXPECT_TRUE(scores.score("adm2", 0));
}

TEST(FloatAdm, NamesAreLibvmafs) {
  EXPECT_EQ(feature_entry("float_adm").make_cuda != nullptr, cuda_twins_built());
  auto extractor = make_feature_extractor(
      "float_adm", {{"adm_f1s0", "0.5"}, {"adm_csf_mode", "1"}, {"adm_skip_scale0", "true"}});
  EXPECT_EQ(extractor->score_key("VMAF_feature_adm2_score"), "adm2_csf_1_f1s0_0.5_ssz");
  EXPECT_THROW(make_feature_extractor("float_adm", {{"adm_skip_aim_scale", "-1"}}), Error);
  EXPECT_THROW(make_feature_extractor("float_adm", {{"adm_csf_mode", "10"}}), Error);
}

// libvmaf divides with RCPSS (rcp_estimate.h): vmafexact's software estimate is
// the reference processor's on every CPU.
TEST(FloatAdmRcp, SpecialValuesAsRcpss) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(float_adm::rcp_estimate(0.0f), inf);
  EXPECT_EQ(float_adm::rcp_estimate(-0.0f), -inf);
  EXPECT_EQ(float_adm::rcp_estimate(std::numeric_limits<float>::denorm_min()), inf);
  EXPECT_EQ(float_adm::rcp_estimate(inf), 0.0f);
  EXPECT_TRUE(std::signbit(float_adm::rcp_estimate(-inf)));
  EXPECT_TRUE(std::isnan(float_adm::rcp_estimate(std::numeric_limits<float>::quiet_NaN())));
  EXPECT_EQ(float_adm::rcp_estimate(std::numeric_limits<float>::max()), 0.0f);  // below the normals
  // The table's first entries (1.0 and 1 + 1/4096) and the exponent mirrored.
  EXPECT_EQ(std::bit_cast<std::uint32_t>(float_adm::rcp_estimate(1.0f)), 0x3f7ff000u);
  EXPECT_EQ(std::bit_cast<std::uint32_t>(float_adm::rcp_estimate(8.0f)), 0x3dfff000u);
  EXPECT_EQ(std::bit_cast<std::uint32_t>(float_adm::rcp_estimate(-0.25f)), 0xc07ff000u);
}

#if defined(__SSE2__)
// Where this processor's RCPSS has the reference's table, every input of a
// sample (every 12-bit mantissa prefix at several exponents, with random low
// bits, and the edges) gives the hardware's bits; elsewhere libvmaf itself
// gives other float_adm scores than the reference logs, and vmafexact keeps
// the reference's.
TEST(FloatAdmRcp, EqualsThisProcessorsRcpssWhereItHasTheReferencesTable) {
  const auto hardware = [](float x) { return _mm_cvtss_f32(_mm_rcp_ss(_mm_set_ss(x))); };
  for (std::uint32_t i = 0; i < 4096; ++i) {
    const float x = std::bit_cast<float>((127u << 23) | (i << 11));
    if (std::bit_cast<std::uint32_t>(hardware(x)) !=
        std::bit_cast<std::uint32_t>(float_adm::rcp_estimate(x)))
      GTEST_SKIP() << "this processor's RCPSS differs from the reference's at 1 + " << i
                   << "/4096: libvmaf's float_adm differs here from the reference logs";
  }
  std::mt19937 rng(7);
  unsigned compared = 0;
  for (std::uint32_t exponent : {0u, 1u, 2u, 100u, 126u, 127u, 128u, 200u, 252u, 253u, 254u, 255u})
    for (std::uint32_t i = 0; i < 4096; ++i)
      for (std::uint32_t sign : {0u, 0x80000000u}) {
        const std::uint32_t bits = sign | (exponent << 23) | (i << 11) | (rng() & 0x7FFu);
        const float x = std::bit_cast<float>(bits);
        const float expected = hardware(x), got = float_adm::rcp_estimate(x);
        ASSERT_TRUE(std::bit_cast<std::uint32_t>(expected) == std::bit_cast<std::uint32_t>(got) ||
                    (std::isnan(expected) && std::isnan(got)))
            << std::hex << bits;
        ++compared;
      }
  EXPECT_EQ(compared, 12u * 4096u * 2u);
}
#endif

// VMAFEXACT_FLOAT_ADM_DIVIDER=this-cpu, for comparing with a libvmaf run on the
// same machine (tests/fixtures/tools/differential.py): DIVS as libvmaf's x86
// build computes it here, this processor's RCPSS refined by one Newton step.
// It equals the reference divider where the processor has the reference's
// table, and differs from it somewhere in the sample where it has another.
TEST(FloatAdmRcp, ThisProcessorsDivisionIsItsRcpssRefined) {
#if defined(__SSE2__)
  const auto refined = [](float n, float d, float xi) { return n * (xi + xi * (1.0f - d * xi)); };
  const auto hardware = [](float x) { return _mm_cvtss_f32(_mm_rcp_ss(_mm_set_ss(x))); };
  bool same_table = true;
  unsigned differing = 0;
  std::mt19937 rng(11);
  for (std::uint32_t exponent : {100u, 126u, 127u, 140u})
    for (std::uint32_t i = 0; i < 4096; ++i) {
      const float d = std::bit_cast<float>((exponent << 23) | (i << 11) |
                                           (static_cast<std::uint32_t>(rng()) & 0x7FFu));
      const float n =
          std::bit_cast<float>((127u << 23) | (static_cast<std::uint32_t>(rng()) & 0x7FFFFFu));
      const float got = float_adm::divide_as_this_processor(n, d);
      ASSERT_EQ(std::bit_cast<std::uint32_t>(got),
                std::bit_cast<std::uint32_t>(refined(n, d, hardware(d))))
          << n << " / " << d;
      same_table = same_table && hardware(d) == float_adm::rcp_estimate(d);
      differing += got != refined(n, d, float_adm::rcp_estimate(d));
    }
  if (same_table)
    EXPECT_EQ(differing, 0u);
  else
    EXPECT_GT(differing, 0u) << "this processor's RCPSS has another table, yet DIVS gives the "
                                "reference's quotients on the whole sample";
#else
  // libvmaf's DIVS without SSE is a division.
  EXPECT_EQ(float_adm::divide_as_this_processor(1.0f, 3.0f), 1.0f / 3.0f);
#endif
}
