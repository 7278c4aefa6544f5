#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <vector>

#include "common/feature_collector.h"
#include "band_runners.h"
#include "common/cpu.h"
#include "common/thread_pool.h"
#include "psnr/psnr.h"
#include "psnr/psnr_dsp.h"
#include "psnr/psnr_extractor.h"
#include "registry.h"

using namespace vmafexact;

namespace {

// A plane of 8-bit or 16-bit samples owned by the test.
template <typename Sample>
struct TestPlane {
  TestPlane(unsigned w, unsigned h, Sample fill, unsigned padding = 3)
      : width(w), height(h), stride_samples(w + padding), samples(std::size_t{stride_samples} * h, fill) {}
  Sample& at(unsigned x, unsigned y) { return samples[std::size_t{y} * stride_samples + x]; }
  PlaneView view() const {
    return {reinterpret_cast<const std::uint8_t*>(samples.data()),
            static_cast<std::ptrdiff_t>(stride_samples * sizeof(Sample)), width, height};
  }
  unsigned width, height, stride_samples;
  std::vector<Sample> samples;
};

}  // namespace

TEST(PsnrSse, IdenticalPlanesHaveZeroError) {
  TestPlane<std::uint8_t> a(17, 5, 77), b(17, 5, 77);
  EXPECT_EQ(psnr::plane_sse(a.view(), b.view(), 8), 0u);
}

TEST(PsnrSse, HandCountedEightBit) {
  TestPlane<std::uint8_t> ref(4, 2, 100), dist(4, 2, 100);
  dist.at(0, 0) = 103;  // 9
  dist.at(3, 0) = 90;   // 100
  dist.at(1, 1) = 0;    // 10000
  // Padding beyond the width must not be read.
  ref.samples[4] = 0;
  EXPECT_EQ(psnr::plane_sse(ref.view(), dist.view(), 8), 9u + 100u + 10000u);
}

TEST(PsnrSse, EightBitRowSumWrapsAt32BitsLikeLibvmaf) {
  // libvmaf sums one 8-bit row in a uint32: 66052 maximal errors overflow it.
  const unsigned width = 66052;
  TestPlane<std::uint8_t> ref(width, 1, 255, 0), dist(width, 1, 0, 0);
  const std::uint64_t exact = std::uint64_t{width} * 255 * 255;
  EXPECT_EQ(psnr::plane_sse(ref.view(), dist.view(), 8), exact % (std::uint64_t{1} << 32));
}

TEST(PsnrSse, SixteenBitMaximalErrorsDoNotWrap) {
  TestPlane<std::uint16_t> ref(2, 1, 65535, 0), dist(2, 1, 0, 0);
  EXPECT_EQ(psnr::plane_sse(ref.view(), dist.view(), 16), 2ull * 65535ull * 65535ull);
  // Sign of the difference does not matter.
  EXPECT_EQ(psnr::plane_sse(dist.view(), ref.view(), 16), 2ull * 65535ull * 65535ull);
}

TEST(PsnrFinish, MeanErrorOfOneAtEightBits) {
  // mse = 1: 10 log10(255^2) = 48.130803608679...
  const double psnr = psnr::psnr_from_sse(64, 8, 8, 8, psnr::default_psnr_max(8));
  EXPECT_EQ(psnr, 10. * std::log10(65025.0));
  EXPECT_NEAR(psnr, 48.1308036086791, 1e-12);
}

TEST(PsnrFinish, MaximalErrorIsZeroDecibels) {
  for (const unsigned bpc : {8u, 10u, 12u, 16u}) {
    const double peak = std::pow(2.0, bpc) - 1;
    const auto sse = static_cast<std::uint64_t>(peak * peak) * 6;
    EXPECT_EQ(psnr::psnr_from_sse(sse, 3, 2, bpc, psnr::default_psnr_max(bpc)), 0.0) << bpc;
  }
}

TEST(PsnrFinish, NoErrorGivesLibvmafCap) {
  EXPECT_EQ(psnr::default_psnr_max(8), 60.0);
  EXPECT_EQ(psnr::default_psnr_max(10), 72.0);
  EXPECT_EQ(psnr::default_psnr_max(12), 84.0);
  EXPECT_EQ(psnr::default_psnr_max(16), 108.0);
  for (const unsigned bpc : {8u, 10u, 12u, 16u})
    EXPECT_EQ(psnr::psnr_from_sse(0, 16, 16, bpc, psnr::default_psnr_max(bpc)),
              psnr::default_psnr_max(bpc));
}

TEST(PsnrFinish, TenBitPeakIs1023) {
  // mse = 1 at 10 bits: 10 log10(1023^2).
  EXPECT_EQ(psnr::psnr_from_sse(100, 10, 10, 10, 72.0), 10. * std::log10(1023.0 * 1023.0));
  EXPECT_NEAR(psnr::psnr_from_sse(100, 10, 10, 10, 72.0), 60.1975126742432, 1e-12);
}

TEST(PsnrFinish, EmptyPlaneScoresTheCapAsLibvmafDoes) {
  // 0/0 is NaN; libvmaf's MAX(mse, 1e-16) then picks 1e-16 and MIN picks the cap.
  EXPECT_EQ(psnr::psnr_from_sse(0, 0, 5, 8, 60.0), 60.0);
}

namespace {

struct TestPicture {
  TestPicture(unsigned w, unsigned h, ChromaFormat chroma, std::uint8_t fill)
      : luma(w, h, fill),
        cb(chroma_plane_width(w, chroma), chroma_plane_height(h, chroma), fill),
        cr(chroma_plane_width(w, chroma), chroma_plane_height(h, chroma), fill) {
    view.bpc = 8;
    view.chroma = chroma;
    view.width = w;
    view.height = h;
    view.planes = {luma.view(), cb.view(), cr.view()};
  }
  void refresh() { view.planes = {luma.view(), cb.view(), cr.view()}; }
  TestPlane<std::uint8_t> luma, cb, cr;
  PictureView view;
};

}  // namespace

TEST(PsnrExtractor, WritesLibvmafNamesPerPlane) {
  TestPicture ref(9, 7, ChromaFormat::k420, 50), dist(9, 7, ChromaFormat::k420, 50);
  dist.cb.at(0, 0) = 51;  // chroma is 4x3 (rounded down)
  dist.refresh();
  auto extractor = make_feature_extractor("psnr");
  extractor->init({9, 7, 8, ChromaFormat::k420});
  FeatureCollector scores;
  extractor->extract(ref.view, dist.view, 0, scores);
  ASSERT_EQ(scores.names(), (std::vector<std::string>{"psnr_y", "psnr_cb", "psnr_cr"}));
  EXPECT_EQ(*scores.score("psnr_y", 0), 60.0);
  EXPECT_EQ(*scores.score("psnr_cb", 0), 10. * std::log10(65025.0 / (1.0 / 12.0)));
  EXPECT_EQ(*scores.score("psnr_cr", 0), 60.0);
}

TEST(PsnrExtractor, GrayHasLumaOnly) {
  TestPicture ref(8, 8, ChromaFormat::k400, 10), dist(8, 8, ChromaFormat::k400, 12);
  auto extractor = make_feature_extractor("psnr");
  extractor->init({8, 8, 8, ChromaFormat::k400});
  FeatureCollector scores;
  extractor->extract(ref.view, dist.view, 3, scores);
  EXPECT_EQ(scores.names(), (std::vector<std::string>{"psnr_y"}));
  EXPECT_EQ(*scores.score("psnr_y", 3), 10. * std::log10(65025.0 / 4.0));
}

TEST(PsnrExtractor, RejectsUnsupportedBitDepth) {
  auto extractor = make_feature_extractor("psnr");
  EXPECT_THROW(extractor->init({8, 8, 9, ChromaFormat::k420}), std::runtime_error);
}

TEST(PsnrSse, BandsOfAnyCutAndOrderGiveTheSameSum) {
  // Including 8-bit rows whose uint32 sum wraps, which must wrap per row
  // whatever the cut.
  ThreadPool pool(3);
  PoolBandRunner pool_runner(pool, 7);
  test::SmallBands small(pool_runner);
  test::ReverseBands reverse(5);
  for (const auto& [w, h] : {std::pair{1u, 1u}, {3u, 7u}, {640u, 360u}, {70000u, 5u}}) {
    TestPlane<std::uint8_t> ref8(w, h, 0), dist8(w, h, 255);
    TestPlane<std::uint16_t> ref16(w, h, 0), dist16(w, h, 0);
    for (unsigned y = 0; y < h; ++y)
      for (unsigned x = 0; x < w; ++x) {
        if ((x + y) % 3 == 0) dist8.at(x, y) = static_cast<std::uint8_t>(x * y);
        dist16.at(x, y) = static_cast<std::uint16_t>((x * 31 + y * 17) & 1023);
      }
    const psnr::PsnrDsp& dsp = psnr::psnr_dsp(cpu::flags());
    const std::uint64_t serial8 = psnr::plane_sse(ref8.view(), dist8.view(), 8, dsp);
    const std::uint64_t serial16 = psnr::plane_sse(ref16.view(), dist16.view(), 10, dsp);
    for (BandRunner* runner : std::initializer_list<BandRunner*>{&pool_runner, &small, &reverse}) {
      EXPECT_EQ(psnr::plane_sse(ref8.view(), dist8.view(), 8, dsp, *runner), serial8) << w << "x" << h;
      EXPECT_EQ(psnr::plane_sse(ref16.view(), dist16.view(), 10, dsp, *runner), serial16) << w << "x" << h;
    }
  }
}
