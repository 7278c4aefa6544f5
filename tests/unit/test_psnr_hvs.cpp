// Unit tests of metrics/psnr_hvs/: libvmaf 3.2.0's "psnr_hvs".
//
// The golden values (golden/psnr_hvs.inc) are libvmaf's own: its `vmaf`
// tool's portable C path (master f85a8536, --cpumask 255, %.17g) on
// float_clip.h's clips written to raw files, at 8, 10 and 12 bits, 4:2:0,
// 4:2:2 and 4:4:4, odd sizes and the smallest (every plane 8x8).

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

#include "common/cpu.h"
#include "float_golden.h"
#include "psnr_hvs/psnr_hvs.h"
#include "registry.h"

using namespace vmafexact;
using namespace vmafexact::test;

namespace {

const std::vector<GoldenCase>& golden_cases() {
  static const std::vector<GoldenCase> cases = {
#include "golden/psnr_hvs.inc"
  };
  return cases;
}

}  // namespace

TEST(PsnrHvs, EveryGoldenValueIsLibvmafs) { expect_every_golden("psnr_hvs", golden_cases(), 8); }

// Daala's DCT: a flat block has no AC energy, and a block whose rows are all
// alike (columns flat) has energy in the first row of coefficients only: the
// columns' transforms come first.
TEST(PsnrHvs, TheDctTransformsColumnsThenRows) {
  std::int32_t in[64], out[64];
  std::fill(std::begin(in), std::end(in), 100);
  psnr_hvs::fdct8x8(in, out);
  EXPECT_NE(out[0], 0);
  for (int i = 1; i < 64; ++i) EXPECT_EQ(out[i], 0) << i;
  for (int i = 0; i < 64; ++i) in[i] = (i % 8) * 37 % 255;
  psnr_hvs::fdct8x8(in, out);
  EXPECT_NE(out[1], 0);
  for (int i = 8; i < 64; ++i) EXPECT_EQ(out[i], 0) << i;
}

TEST(PsnrHvs, WritesEachPlaneThenTheCombinedScore) {
  const Clip clip = make_float_clip({16, 16, 8, ChromaFormat::k420}, 1, 1);
  auto extractor = make_feature_extractor("psnr_hvs");
  extractor->init(clip.format);
  FeatureCollector scores;
  extractor->extract(clip.ref_view(0), clip.dist_view(0), 0, scores);
  EXPECT_EQ(scores.names(),
            (std::vector<std::string>{"psnr_hvs_y", "psnr_hvs_cb", "psnr_hvs_cr", "psnr_hvs"}));
  EXPECT_TRUE(extractor->reads_chroma());
  // Identical pictures: no error anywhere, an infinite score as libvmaf's.
  FeatureCollector same;
  extractor->extract(clip.ref_view(0), clip.ref_view(0), 0, same);
  EXPECT_TRUE(std::isinf(*same.score("psnr_hvs", 0)));
}

TEST(PsnrHvs, RefusesWhatLibvmafCannotScore) {
  EXPECT_EQ(init_error("psnr_hvs", {16, 16, 12, ChromaFormat::k420}), "");
  const std::string deep = init_error("psnr_hvs", {16, 16, 16, ChromaFormat::k444});
  EXPECT_NE(deep.find("at most 12 bits"), std::string::npos) << deep;
  EXPECT_NE(init_error("psnr_hvs", {16, 16, 8, ChromaFormat::k400}).find("gray"),
            std::string::npos);
  // 15x15 4:2:0 has 7x7 chroma: no block, and libvmaf's 0/0.
  const std::string small = init_error("psnr_hvs", {15, 15, 8, ChromaFormat::k420});
  EXPECT_NE(small.find("at least 8x8"), std::string::npos) << small;
  EXPECT_NE(small.find("7x7"), std::string::npos) << small;
  EXPECT_EQ(init_error("psnr_hvs", {8, 8, 8, ChromaFormat::k444}), "");
  EXPECT_NE(init_error("psnr_hvs", {7, 9, 8, ChromaFormat::k444}), "");
}

// Samples beyond the bit depth (a 12-bit video's 16-bit containers may hold
// any value) drive Daala's 32-bit lifting products past 2^31: libvmaf's
// compiled code wraps them, and so must every twin. libvmaf's own scores of
// this picture (its C path, %.17g): psnr_hvs_cb below, the others NaN (a
// negative sum's log).
TEST(PsnrHvs, ProductsPast2To31WrapAsInLibvmaf) {
  Clip clip;
  clip.format = {64, 64, 12, ChromaFormat::k444};
  std::uint32_t state = 777;
  for (auto* planes : {&clip.ref_planes, &clip.dist_planes})
    for (unsigned p = 0; p < 3; ++p) {
      std::vector<std::uint8_t> plane(64 * 64 * 2);
      for (std::size_t i = 0; i < plane.size(); i += 2) {
        state = state * 1103515245u + 12345u;
        const auto v = static_cast<std::uint16_t>((state >> 8) & 0xffff);
        std::memcpy(&plane[i], &v, 2);
      }
      planes->push_back(std::move(plane));
    }
  const unsigned saved_mask = cpu::cpu_mask();
  for (const unsigned mask : {0u, unsigned{cpu::kAvx2}, unsigned{cpu::kAllFlags}}) {
    SCOPED_TRACE(std::string("twin ") + cpu::best_isa_name(cpu::detected_flags() & mask));
    cpu::set_cpu_mask(mask);  // taken by the stage the extractor builds at init()
    auto extractor = make_feature_extractor("psnr_hvs");
    extractor->init(clip.format);
    FeatureCollector scores;
    extractor->extract(clip.ref_view(0), clip.dist_view(0), 0, scores);
    EXPECT_EQ(*scores.score("psnr_hvs_cb", 0), -14.877033748836903);
    EXPECT_TRUE(std::isnan(*scores.score("psnr_hvs_y", 0)));
    EXPECT_TRUE(std::isnan(*scores.score("psnr_hvs_cr", 0)));
    EXPECT_TRUE(std::isnan(*scores.score("psnr_hvs", 0)));
  }
  cpu::set_cpu_mask(saved_mask);
}
