#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <vector>

#include "pooling/pooling.h"

using vmafexact::pool_scores;

TEST(Pooling, MinMaxMeanHarmonicMean) {
  const std::vector<std::optional<double>> scores = {90.0, 80.0, 100.0, 70.0};
  const auto pooled = pool_scores(scores, 0, 3);
  ASSERT_TRUE(pooled);
  EXPECT_EQ(pooled->min, 70.0);
  EXPECT_EQ(pooled->max, 100.0);
  EXPECT_EQ(pooled->mean, 85.0);
  // libvmaf's harmonic mean: n / sum(1 / (s + 1)) - 1, summed in frame order.
  const double inverse_sum = 1. / 91. + 1. / 81. + 1. / 101. + 1. / 71.;
  EXPECT_EQ(pooled->harmonic_mean, 4 / inverse_sum - 1.0);
}

TEST(Pooling, SumsInFrameOrder) {
  // 1e16 + 1 + 1 - 1e16 in order is 0 (each 1 is lost), not 2.
  const std::vector<std::optional<double>> scores = {1e16, 1.0, 1.0, -1e16};
  EXPECT_EQ(pool_scores(scores, 0, 3)->mean, 0.0);
}

TEST(Pooling, SubsampleTakesEveryNthFrame) {
  const std::vector<std::optional<double>> scores = {1.0, std::nullopt, 3.0, std::nullopt, 5.0};
  const auto pooled = pool_scores(scores, 0, 4, 2);
  ASSERT_TRUE(pooled);
  EXPECT_EQ(pooled->mean, 3.0);
  EXPECT_EQ(pooled->min, 1.0);
  EXPECT_EQ(pooled->max, 5.0);
}

TEST(Pooling, MissingFrameFailsLikeLibvmaf) {
  const std::vector<std::optional<double>> scores = {1.0, std::nullopt, 3.0};
  EXPECT_FALSE(pool_scores(scores, 0, 2));
  EXPECT_FALSE(pool_scores(scores, 0, 5));  // past the end
  EXPECT_FALSE(pool_scores(scores, 2, 1));  // empty range
}

TEST(Pooling, SingleFrame) {
  const std::vector<std::optional<double>> scores = {42.5};
  const auto pooled = pool_scores(scores, 0, 0);
  ASSERT_TRUE(pooled);
  EXPECT_EQ(pooled->mean, 42.5);
  EXPECT_EQ(pooled->harmonic_mean, 1 / (1. / 43.5) - 1.0);
}
