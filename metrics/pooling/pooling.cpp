#include "pooling/pooling.h"

namespace vmafexact {

std::optional<PooledScore> pool_scores(const std::vector<std::optional<double>>& per_frame,
                                       unsigned first, unsigned last, unsigned subsample) {
  if (first > last) return std::nullopt;
  unsigned pooled_count = 0;
  double min = 0., max = 0., sum = 0., inverse_sum = 0.;
  for (unsigned i = first; i <= last; ++i) {
    if (subsample > 1 && i % subsample) continue;
    ++pooled_count;
    if (i >= per_frame.size() || !per_frame[i]) return std::nullopt;
    const double s = *per_frame[i];
    sum += s;
    inverse_sum += 1. / (s + 1.);
    if (i == first || s < min) min = s;
    if (i == first || s > max) max = s;
    if (i == last) break;  // keeps i <= last from wrapping at UINT_MAX
  }
  PooledScore pooled;
  pooled.min = min;
  pooled.max = max;
  pooled.mean = sum / pooled_count;
  pooled.harmonic_mean = pooled_count / inverse_sum - 1.0;
  return pooled;
}

}  // namespace vmafexact
