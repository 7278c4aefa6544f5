// The CUDA twin of integer VIF ("vif"), cuda/vif/: what is not parity of sums
// (that is the twin harness's, tests/harness/check_vif_cuda.cpp): the twin's
// options, names and keys are the CPU extractor's (no device needed), and
// init() refuses what the CPU refuses (on a device; skipped without one).
#include <gtest/gtest.h>

#include <string>

#include "common/cuda_util.h"
#include "common/error.h"
#include "registry.h"

using namespace vmafexact;

TEST(VifCudaTwin, FactoryTakesTheCpuOptionsNamesAndKeys) {
  // No CUDA call before init(): these run without a device.
  EXPECT_THROW(make_feature_extractor("vif", {{"egl", "1"}}, Backend::kCuda, nullptr), Error);
  EXPECT_THROW(make_feature_extractor("vif", {{"vif_enhn_gain_limit", "0.5"}}, Backend::kCuda, nullptr), Error);
  EXPECT_THROW(make_feature_extractor("vif", {{"vif_kernelscale", "1"}}, Backend::kCuda, nullptr), Error);
  for (const FeatureOptions& options :
       {FeatureOptions{}, FeatureOptions{{"debug", "true"}},
        FeatureOptions{{"vif_enhn_gain_limit", "1.0"}, {"vif_skip_scale0", "true"}}}) {
    const auto cpu = make_feature_extractor("vif", options);
    const auto twin = make_feature_extractor("vif", options, Backend::kCuda, nullptr);
    EXPECT_EQ(twin->name(), cpu->name());
    EXPECT_EQ(twin->provided_features(), cpu->provided_features());
    EXPECT_EQ(twin->latency_frames(), cpu->latency_frames());
    EXPECT_EQ(twin->sees_every_frame(), cpu->sees_every_frame());
    for (const auto& name : cpu->provided_features()) EXPECT_EQ(twin->score_key(name), cpu->score_key(name));
  }
}

class VifCudaDevice : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string reason;
    if (!cuda::device_available(&reason)) GTEST_SKIP() << "no usable CUDA device (" << reason << ")";
  }
};

TEST_F(VifCudaDevice, InitRejectsWhatTheCpuRejects) {
  cuda::Stream stream;
  auto twin = make_feature_extractor("vif", {}, Backend::kCuda, stream.get());
  EXPECT_THROW(twin->init({7, 8, 8, ChromaFormat::k420}), Error);
  EXPECT_THROW(twin->init({8, 7, 8, ChromaFormat::k420}), Error);
  EXPECT_THROW(twin->init({64, 64, 9, ChromaFormat::k420}), Error);
}
