// Unit tests of libvmaf's float luma extractors: float_psnr, float_ansnr and
// float_moment (metrics/float_psnr, float_ansnr, float_moment, common/float_sums).
//
// The golden values (golden/float_psnr.inc, float_ansnr.inc, float_moment.inc)
// are libvmaf's own: its `vmaf` tool's portable C path (master f85a8536,
// --cpumask 255, scores printed with %.17g) on float_clip.h's clips written
// to raw files. The stages are also checked against the sums done the slow
// way, in libvmaf's order, on pictures cut into bands, and on a 16-bit
// picture whose sums pass 2^53.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "band_runners.h"
#include "common/float_plane.h"
#include "common/float_sums.h"
#include "float_ansnr/float_ansnr.h"
#include "float_golden.h"
#include "float_moment/float_moment.h"
#include "float_psnr/float_psnr.h"
#include "registry.h"
#include "test_pictures.h"

using namespace vmafexact;
using namespace vmafexact::test;

namespace {

const std::vector<GoldenCase>& psnr_cases() {
  static const std::vector<GoldenCase> cases = {
#include "golden/float_psnr.inc"
  };
  return cases;
}
const std::vector<GoldenCase>& ansnr_cases() {
  static const std::vector<GoldenCase> cases = {
#include "golden/float_ansnr.inc"
  };
  return cases;
}
const std::vector<GoldenCase>& moment_cases() {
  static const std::vector<GoldenCase> cases = {
#include "golden/float_moment.inc"
  };
  return cases;
}

// libvmaf's double sums, one sample after another: `cum += v` or `cum += v * v`
// (the product in float), or with `minus` the squared float differences.
double slow_sum(const PlaneView& plane, const PlaneView* minus, unsigned bpc, bool square) {
  FloatPlane a, b;
  copy_plane_to_float(plane, bpc, 0, a);
  if (minus) copy_plane_to_float(*minus, bpc, 0, b);
  double cum = 0;
  for (unsigned y = 0; y < plane.height; ++y)
    for (unsigned x = 0; x < plane.width; ++x) {
      const float v = minus ? a.row(y)[x] - b.row(y)[x] : a.row(y)[x];
      cum += square ? v * v : v;
    }
  return cum;
}

// ansnr_filter2d_s() and ansnr_mse_s() written out plainly, one output at a time.
float mirror_sample(const FloatPlane& p, int y, int x) {
  const int h = static_cast<int>(p.height), w = static_cast<int>(p.width);
  y = y < 0 ? -y : y >= h ? 2 * h - y - 1 : y;
  x = x < 0 ? -x : x >= w ? 2 * w - x - 1 : x;
  return p.row(static_cast<unsigned>(y))[x];
}
FloatPlane slow_filter(const std::vector<float>& kernel, int side, const FloatPlane& src) {
  FloatPlane dst(src.width, src.height);
  for (int i = 0; i < static_cast<int>(src.height); ++i)
    for (int j = 0; j < static_cast<int>(src.width); ++j) {
      float accum = 0;
      for (int fi = 0; fi < side; ++fi) {
        float inner = 0;
        for (int fj = 0; fj < side; ++fj)
          inner +=
              kernel[fi * side + fj] * mirror_sample(src, i - side / 2 + fi, j - side / 2 + fj);
        accum += inner;
      }
      dst.row(static_cast<unsigned>(i))[j] = accum;
    }
  return dst;
}
float_ansnr::FloatAnsnrSums slow_ansnr(const PictureView& ref, const PictureView& dist) {
  FloatPlane r, d;
  copy_plane_to_float(ref.planes[0], ref.bpc, -128, r);
  copy_plane_to_float(dist.planes[0], dist.bpc, -128, d);
  std::vector<float> ref_kernel, dist_kernel;
  for (double v : {1.0, 2.0, 1.0, 2.0, 4.0, 2.0, 1.0, 2.0, 1.0})
    ref_kernel.push_back(static_cast<float>(v / 16.0));
  for (double v : {2.0,  7.0,  12.0, 7.0,  2.0,  7.0,  31.0, 52.0, 31.0, 7.0,  12.0, 52.0, 127.0,
                   52.0, 12.0, 7.0,  31.0, 52.0, 31.0, 7.0,  2.0,  7.0,  12.0, 7.0,  2.0})
    dist_kernel.push_back(static_cast<float>(v / 571.0));
  const FloatPlane rf = slow_filter(ref_kernel, 3, r), df = slow_filter(dist_kernel, 5, d);
  float_ansnr::FloatAnsnrSums sums;
  for (unsigned y = 0; y < rf.height; ++y) {
    float sig = 0, noise = 0;
    for (unsigned x = 0; x < rf.width; ++x) {
      const float a = rf.row(y)[x], b = df.row(y)[x];
      sig += a * a;
      noise += (a - b) * (a - b);
    }
    sums.sig += sig;
    sums.noise += noise;
  }
  return sums;
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

struct Shape {
  unsigned w, h, bpc;
};
constexpr Shape kShapes[] = {{1, 1, 8},    {3, 3, 8},   {5, 4, 10},  {17, 9, 12},
                             {64, 33, 16}, {129, 7, 8}, {31, 40, 10}};

}  // namespace

TEST(FloatPsnr, EveryGoldenValueIsLibvmafs) { expect_every_golden("float_psnr", psnr_cases(), 7); }

TEST(FloatAnsnr, EveryGoldenValueIsLibvmafs) {
  expect_every_golden("float_ansnr", ansnr_cases(), 7);
}

TEST(FloatMoment, EveryGoldenValueIsLibvmafs) {
  expect_every_golden("float_moment", moment_cases(), 7);
}

// The stages' sums equal libvmaf's one-pass sums whatever the bands, at every
// depth, on random samples over the whole range.
TEST(FloatLumaStages, EqualTheSumsInLibvmafsOrderAtAnyCut) {
  std::mt19937 rng(7);
  ReverseBands bands(5);
  for (const Shape s : kShapes) {
    SCOPED_TRACE(std::to_string(s.w) + "x" + std::to_string(s.h) + " " + std::to_string(s.bpc));
    TestPlane ref(s.w, s.h, s.bpc), dist(s.w, s.h, s.bpc);
    std::uniform_int_distribution<unsigned> sample(0, (1u << s.bpc) - 1);
    for (unsigned y = 0; y < s.h; ++y)
      for (unsigned x = 0; x < s.w; ++x) {
        ref.set(x, y, sample(rng));
        dist.set(x, y, sample(rng));
      }
    const PictureView r = ref.view(), d = dist.view();
    for (BandRunner* runner : {&serial_band_runner(), static_cast<BandRunner*>(&bands)}) {
      float_psnr::FloatPsnrCpuStage psnr;
      psnr.set_band_runner(*runner);
      EXPECT_TRUE(
          same_bits(psnr.compute(r, d, 0).noise, slow_sum(r.planes[0], &d.planes[0], s.bpc, true)));
      float_moment::FloatMomentCpuStage moment;
      moment.set_band_runner(*runner);
      const auto m = moment.compute(r, d, 0);
      EXPECT_TRUE(same_bits(m.ref_first, slow_sum(r.planes[0], nullptr, s.bpc, false)));
      EXPECT_TRUE(same_bits(m.dist_first, slow_sum(d.planes[0], nullptr, s.bpc, false)));
      EXPECT_TRUE(same_bits(m.ref_second, slow_sum(r.planes[0], nullptr, s.bpc, true)));
      EXPECT_TRUE(same_bits(m.dist_second, slow_sum(d.planes[0], nullptr, s.bpc, true)));
      if (s.w >= float_ansnr::kMinSide && s.h >= float_ansnr::kMinSide) {
        float_ansnr::FloatAnsnrCpuStage ansnr;
        ansnr.set_band_runner(*runner);
        const auto a = ansnr.compute(r, d, 0), slow = slow_ansnr(r, d);
        EXPECT_EQ(a.sig, slow.sig);
        EXPECT_EQ(a.noise, slow.noise);
      }
    }
  }
  EXPECT_GT(bands.most_bands, 1u);
}

// A 16-bit picture whose rounded squares pass 2^53 in all: libvmaf's double
// rounds as it adds, and the stages must round as it does. The first rows'
// squares (0 against 65535) pass 2^53; the last rows' odd ones then fall
// between two doubles, so the exact total over 256^2 is another double (the
// test checks that it tells the two apart).
TEST(FloatLumaStages, SixteenBitSumsPast2To53AreAddedInLibvmafsOrder) {
  const unsigned w = 1600, h = 1500, large_rows = 1400;  // 2.24 million squares of 65535^2
  TestPlane ref(w, h, 16), dist(w, h, 16);
  std::mt19937 rng(3);
  std::uniform_int_distribution<unsigned> odd(0, 99);
  std::uint64_t exact = 0;
  for (unsigned y = 0; y < h; ++y)
    for (unsigned x = 0; x < w; ++x) {
      const unsigned b = y < large_rows ? 0u : 30000u;
      const unsigned a = y < large_rows ? 65535u : b + 2 * odd(rng) + 1;
      ref.set(x, y, a);
      dist.set(x, y, b);
      const std::int64_t m = std::int64_t{a} - b;
      exact += static_cast<std::uint64_t>(static_cast<float>(m * m));
    }
  const PictureView r = ref.view(), d = dist.view();
  ASSERT_GE(exact, std::uint64_t{1} << 53);
  const double slow = slow_sum(r.planes[0], &d.planes[0], 16, true);
  ASSERT_FALSE(same_bits(static_cast<double>(exact) / (256.0 * 256.0), slow))
      << "this picture's sum does not round: pick another";
  float_psnr::FloatPsnrCpuStage psnr;
  EXPECT_TRUE(same_bits(psnr.compute(r, d, 0).noise, slow));
  float_moment::FloatMomentCpuStage moment;
  const auto moments = moment.compute(r, d, 0);
  EXPECT_TRUE(same_bits(moments.ref_second, slow_sum(r.planes[0], nullptr, 16, true)));
  EXPECT_TRUE(same_bits(moments.ref_first, slow_sum(r.planes[0], nullptr, 16, false)));
}

TEST(FloatLuma, ScoresFollowLibvmafsFinishingSteps) {
  // No noise: float_psnr and float_anpsnr take psnr_max, float_ansnr too.
  EXPECT_EQ(float_psnr::float_psnr_from_noise(0, 4, 4, 8), 60.0);
  EXPECT_EQ(float_psnr::float_psnr_from_noise(0, 4, 4, 16), 108.0);
  const auto none = float_ansnr::ansnr_scores({5.0f, 0.0f}, 8, 8, 10);
  EXPECT_EQ(none.ansnr, 72.0);
  EXPECT_EQ(none.anpsnr, 72.0);
  // A noise of 1 per pixel at 8 bits: 10 log10(255^2).
  EXPECT_EQ(float_psnr::float_psnr_from_noise(16, 4, 4, 8), 10 * std::log10(255.0 * 255.0 / 1.0));
  // sig / noise is a float quotient.
  const auto s = float_ansnr::ansnr_scores({1.0f, 3.0f}, 2, 2, 8);
  EXPECT_EQ(s.ansnr, 10.0 * std::log10(static_cast<double>(1.0f / 3.0f)));
  EXPECT_NE(s.ansnr, 10.0 * std::log10(1.0 / 3.0));
  EXPECT_EQ(float_moment::moment_from_sum(10, 2, 2), 2.5);
}

TEST(FloatLuma, AnsnrRefusesPicturesItsFilterWouldReadOutside) {
  EXPECT_EQ(init_error("float_ansnr", {3, 3, 8, ChromaFormat::k420}), "");
  const std::string small = init_error("float_ansnr", {2, 9, 8, ChromaFormat::k420});
  EXPECT_NE(small.find("float_ansnr"), std::string::npos) << small;
  EXPECT_NE(small.find("at least 3x3"), std::string::npos) << small;
  EXPECT_NE(small.find("2x9"), std::string::npos) << small;
  EXPECT_NE(init_error("float_ansnr", {9, 2, 8, ChromaFormat::k444}), "");
  EXPECT_EQ(init_error("float_psnr", {1, 1, 8, ChromaFormat::k444}), "");
  EXPECT_EQ(init_error("float_moment", {1, 1, 16, ChromaFormat::k400}), "");
  EXPECT_NE(init_error("float_psnr", {4, 4, 9, ChromaFormat::k420}), "");
}
