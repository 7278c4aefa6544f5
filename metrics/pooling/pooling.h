// Pooling of per-frame scores exactly as libvmaf 3.2.0's
// vmaf_feature_score_pooled(): one pass in frame order, plain double sums.
#pragma once

#include <optional>
#include <vector>

namespace vmafexact {

struct PooledScore {
  double min = 0.;
  double max = 0.;
  double mean = 0.;
  double harmonic_mean = 0.;  // libvmaf's: n / sum(1 / (s + 1)) - 1
};

// Pools frames first..last (inclusive) of one score, taking only frames whose
// index is a multiple of subsample when subsample > 1. Returns nullopt where
// libvmaf fails: an empty range, or a frame in it without this score.
std::optional<PooledScore> pool_scores(const std::vector<std::optional<double>>& per_frame,
                                       unsigned first, unsigned last, unsigned subsample = 1);

}  // namespace vmafexact
