// Unit tests of metrics/float_vif/: libvmaf 3.2.0's "float_vif".
//
// The golden values (golden/float_vif.inc) are libvmaf's own, printed with
// %.17g from its portable C build on float_clip.h's clips: 8, 10, 12 and 16
// bits, odd sizes, the 16x16 minimum, and every option (each prescaling
// method, kernel scales, debug's extra scores).

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "common/error.h"
#include "float_golden.h"
#include "float_vif/float_vif.h"
#include "float_vif/float_vif_extractor.h"
#include "registry.h"

using namespace vmafexact;
using namespace vmafexact::test;

namespace {

const std::vector<GoldenCase>& golden_cases() {
  static const std::vector<GoldenCase> cases = {
#include "golden/float_vif.inc"
  };
  return cases;
}

}  // namespace

TEST(FloatVif, EveryGoldenValueIsLibvmafs) { expect_every_golden("float_vif", golden_cases(), 20); }

TEST(FloatVif, ApproximateLog2IsLibvmafs) {
  EXPECT_EQ(float_vif::log2f_approx(1.0f), 0.0f);
  EXPECT_EQ(float_vif::log2f_approx(8.0f), 3.0f);
  EXPECT_EQ(float_vif::log2f_approx(0.0f), -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(float_vif::log2f_approx(-1.0f)));
}

TEST(FloatVif, FiltersAreLibvmafs) {
  // vif_get_filter_size(): (2^(4-scale) + 1) * kernelscale rounded up to odd, at least 3.
  EXPECT_EQ(float_vif::vif_filter(0, 1.0).size(), 17u);
  EXPECT_EQ(float_vif::vif_filter(1, 1.0).size(), 9u);
  EXPECT_EQ(float_vif::vif_filter(2, 1.0).size(), 5u);
  EXPECT_EQ(float_vif::vif_filter(3, 1.0).size(), 3u);
  EXPECT_EQ(float_vif::vif_filter(3, 0.5).size(), 3u);
  EXPECT_EQ(float_vif::vif_filter(0, 1.5).size(), 27u);
  EXPECT_TRUE(float_vif::valid_kernelscale(360.0 / 97.0));
  EXPECT_FALSE(float_vif::valid_kernelscale(1.2));
}

TEST(FloatVif, RefusesPicturesItWouldReadOutside) {
  // Scale 3 (an eighth of the picture) must be 2x2 for its 3-tap filter.
  EXPECT_EQ(init_error("float_vif", {16, 16, 8, ChromaFormat::k420}), "");
  const std::string narrow = init_error("float_vif", {15, 64, 8, ChromaFormat::k420});
  EXPECT_NE(narrow.find("float_vif: pictures must be at least 16x16"), std::string::npos) << narrow;
  EXPECT_NE(narrow.find("15x64"), std::string::npos) << narrow;
  EXPECT_NE(init_error("float_vif", {64, 15, 8, ChromaFormat::k420}), "");
  // Larger kernels need larger pictures; prescaling counts.
  EXPECT_NE(init_error("float_vif", {20, 20, 8, ChromaFormat::k420}, {{"vif_kernelscale", "1.5"}}), "");
  EXPECT_EQ(init_error("float_vif", {24, 24, 8, ChromaFormat::k420}, {{"vif_kernelscale", "1.5"}}), "");
  EXPECT_NE(init_error("float_vif", {30, 30, 8, ChromaFormat::k420}, {{"vif_prescale", "0.5"}}), "");  // 15x15
  EXPECT_EQ(init_error("float_vif", {31, 31, 8, ChromaFormat::k420}, {{"vif_prescale", "0.5"}}), "");  // 16x16
  EXPECT_EQ(init_error("float_vif", {8, 8, 8, ChromaFormat::k420}, {{"vif_prescale", "2"}}), "");
}

TEST(FloatVif, RefusesWhatLibvmafRefuses) {
  EXPECT_NE(init_error("float_vif", {64, 64, 8, ChromaFormat::k420}, {{"vif_kernelscale", "1.2"}})
                .find("float_vif: vif_kernelscale=1.2 is not one of libvmaf's kernel scales"),
            std::string::npos);
  EXPECT_NE(init_error("float_vif", {64, 64, 8, ChromaFormat::k420}, {{"vif_prescale_method", "area"}})
                .find("unknown vif_prescale_method 'area'"),
            std::string::npos);
  EXPECT_NE(init_error("float_vif", {64, 64, 8, ChromaFormat::k420}, {{"vif_enhn_gain_limit", "0.5"}}), "");
  // libvmaf's bilinear tables hold 7680 columns.
  EXPECT_NE(init_error("float_vif", {3841, 16, 8, ChromaFormat::k400},
                       {{"vif_prescale", "2"}, {"vif_prescale_method", "bilinear"}}),
            "");
}

TEST(FloatVif, NamesAreLibvmafs) {
  EXPECT_EQ(feature_entry("float_vif").make_cuda != nullptr, cuda_twins_built());
  auto extractor = make_feature_extractor(
      "float_vif", {{"vif_prescale_method", "bicubic"}, {"vif_prescale", "1.5"}});
  EXPECT_EQ(extractor->score_key("VMAF_feature_vif_scale0_score"), "vif_scale0_ps_1.5_pm_bicubic");
  EXPECT_EQ(make_feature_extractor("float_vif", {{"vif_prescale_method", "nearest"}})
                ->score_key("VMAF_feature_vif_scale0_score"),
            "vif_scale0");
}
