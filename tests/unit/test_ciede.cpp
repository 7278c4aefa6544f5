// Unit tests of metrics/ciede/: libvmaf 3.2.0's "ciede" (CIEDE2000).
//
// The golden values (golden/ciede.inc) are libvmaf's own: its `vmaf` tool's
// portable C path (master f85a8536, --cpumask 255, %.17g) on float_clip.h's
// clips written to raw files, at 8, 10, 12 and 16 bits, 4:2:0, 4:4:4 and
// 4:2:2 (whose chroma libvmaf reads running on into the next rows and its
// zeroed padding), odd sizes and a 2x2 picture.

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "ciede/ciede.h"
#include "float_golden.h"
#include "registry.h"

using namespace vmafexact;
using namespace vmafexact::test;

namespace {

const std::vector<GoldenCase>& golden_cases() {
  static const std::vector<GoldenCase> cases = {
#include "golden/ciede.inc"
  };
  return cases;
}

}  // namespace

TEST(Ciede, EveryGoldenValueIsLibvmafs) { expect_every_golden("ciede", golden_cases(), 8); }

TEST(Ciede, LabOfWhiteBlackAndGreyIsOnTheGreyAxis) {
  // Video-range white and black: L 100 and 0 (within the BT.709 rounding), a and b near 0.
  const ciede::Lab white = ciede::lab_of(235, 128, 128, 8);
  EXPECT_NEAR(white.l, 100.0f, 0.01f);
  EXPECT_NEAR(white.a, 0.0f, 0.01f);
  const ciede::Lab black = ciede::lab_of(16, 128, 128, 8);
  EXPECT_NEAR(black.l, 0.0f, 0.01f);
  // The same colour at 10 bits.
  const ciede::Lab white10 = ciede::lab_of(940, 512, 512, 10);
  EXPECT_EQ(white10.l, white.l);
  EXPECT_EQ(ciede::delta_e_2000(white, white), 0.0f);
  EXPECT_GT(ciede::delta_e_2000(white, black), 50.0f);
}

// libvmaf's 4:2:2 upsampling: rows halved, columns not; a column past the
// chroma width reads the 32-sample-aligned row's zero padding, then the
// next row of the buffer.
TEST(Ciede, FourTwoTwoChromaIsReadAsLibvmafReadsIt) {
  const ciede::ChromaMap map({100, 60, 8, ChromaFormat::k422});  // chroma 50 wide, rows of 64
  EXPECT_TRUE(map.inside());
  EXPECT_EQ(map.site(10, 5).row, 2u);
  EXPECT_EQ(map.site(10, 5).column, 10u);
  EXPECT_EQ(map.site(60, 0).row, 0u);
  EXPECT_EQ(map.site(60, 0).column, 60u);  // padding: read as 0
  EXPECT_EQ(map.site(70, 3).row, 2u);
  EXPECT_EQ(map.site(70, 3).column, 6u);
  const ciede::ChromaMap even({16, 8, 8, ChromaFormat::k420});
  EXPECT_EQ(even.site(15, 7).row, 3u);
  EXPECT_EQ(even.site(15, 7).column, 7u);
}

TEST(Ciede, RefusesWhereLibvmafReadsOutsideItsPlanes) {
  EXPECT_EQ(init_error("ciede", {2, 2, 8, ChromaFormat::k420}), "");
  const std::string odd = init_error("ciede", {17, 16, 8, ChromaFormat::k420});
  EXPECT_NE(odd.find("even width and height"), std::string::npos) << odd;
  EXPECT_NE(odd.find("17x16"), std::string::npos) << odd;
  EXPECT_NE(init_error("ciede", {16, 15, 10, ChromaFormat::k420}), "");
  EXPECT_NE(init_error("ciede", {16, 16, 8, ChromaFormat::k400}).find("gray"), std::string::npos);
  // 64x1 4:2:2: the one row's 64 reads pass its 32-sample chroma row.
  EXPECT_NE(init_error("ciede", {64, 1, 8, ChromaFormat::k422}), "");
  EXPECT_EQ(init_error("ciede", {64, 2, 8, ChromaFormat::k422}), "");
  EXPECT_EQ(init_error("ciede", {33, 17, 16, ChromaFormat::k444}), "");
}

TEST(Ciede, IdenticalPicturesScoreInfinity) {
  const Clip clip = make_float_clip({16, 16, 8, ChromaFormat::k444}, 1, 1);
  auto extractor = make_feature_extractor("ciede");
  extractor->init(clip.format);
  FeatureCollector scores;
  extractor->extract(clip.ref_view(0), clip.ref_view(0), 0, scores);
  EXPECT_TRUE(std::isinf(*scores.score("ciede2000", 0)));
  EXPECT_EQ(ciede::ciede_score(4.0, 2, 2), 45.0);
}

// The stage skips equal pixels as 0: ciede2000() of a colour with itself must
// be exactly 0 for every colour (and the Lab cache must give lab_of()'s bits,
// which the golden values check).
TEST(Ciede, AColoursDifferenceFromItselfIsExactlyZero) {
  std::mt19937 rng(11);
  for (unsigned bpc : {8u, 10u, 12u, 16u}) {
    std::uniform_int_distribution<unsigned> sample(0, (1u << bpc) - 1);
    for (int i = 0; i < 20000; ++i) {
      const ciede::Lab colour = ciede::lab_of(sample(rng), sample(rng), sample(rng), bpc);
      const float same = ciede::delta_e_2000(colour, colour);
      EXPECT_EQ(same, 0.0f) << bpc << "-bit colour " << i;
      if (same != 0.0f) return;
    }
  }
}
