// The CUDA twin of integer motion ("motion"): what is not parity of sums (that
// is the twin harness's, tests/harness/check_motion_cuda.cpp): the twin's
// names, keys and option checks are the CPU extractor's (no device needed).
#include <gtest/gtest.h>

#include <vector>

#include "common/error.h"
#include "registry.h"

using namespace vmafexact;

TEST(CudaMotionTwin, TwinHasTheCpuNamesKeysAndOptionChecks) {
  // No device is touched before init(), so this runs anywhere.
  const std::vector<FeatureOptions> option_sets = {
      {},
      {{"debug", "true"}},
      {{"motion_force_zero", "true"}},
      {{"motion_five_frame_window", "true"}, {"motion_blend_factor", "0.5"}},
      {{"motion_moving_average", "true"}, {"motion_max_val", "7"}, {"motion_fps_weight", "2.5"}}};
  for (const auto& options : option_sets) {
    const auto cpu = make_feature_extractor("motion", options);
    const auto twin = make_feature_extractor("motion", options, Backend::kCuda);
    EXPECT_EQ(twin->name(), cpu->name());
    EXPECT_EQ(twin->provided_features(), cpu->provided_features());
    for (const auto& feature : cpu->provided_features())
      EXPECT_EQ(twin->score_key(feature), cpu->score_key(feature));
    EXPECT_EQ(twin->latency_frames(), cpu->latency_frames());
    EXPECT_EQ(twin->sees_every_frame(), cpu->sees_every_frame());
  }
  EXPECT_THROW(make_feature_extractor("motion", {{"force_0", "true"}}, Backend::kCuda), Error);
  EXPECT_THROW(make_feature_extractor("motion", {{"motion_blend_factor", "1.5"}}, Backend::kCuda),
               Error);
  auto small = make_feature_extractor("motion", {}, Backend::kCuda);
  EXPECT_THROW(small->init({2, 5, 8, ChromaFormat::k420}), Error);
  EXPECT_THROW(small->init({16, 16, 9, ChromaFormat::k420}), Error);
  auto tiny = make_feature_extractor("motion", {{"motion_force_zero", "true"}}, Backend::kCuda);
  EXPECT_NO_THROW(tiny->init({1, 1, 8, ChromaFormat::k420}));
}
