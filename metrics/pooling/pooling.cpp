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

void RunningPools::add_frame(const std::vector<std::pair<std::string, double>>& frame_scores) {
  const bool first_frame = frames_ == 0;
  ++frames_;
  for (const auto& [name, s] : frame_scores) {
    auto kept = scores_.begin();
    while (kept != scores_.end() && kept->name != name) ++kept;
    if (kept == scores_.end()) kept = scores_.insert(scores_.end(), Running{name});
    // pool_scores(): min and max start at the first frame (with s < min, so
    // a NaN there stays), the sums add in frame order.
    if (first_frame || s < kept->min) kept->min = s;
    if (first_frame || s > kept->max) kept->max = s;
    kept->sum += s;
    kept->inverse_sum += 1. / (s + 1.);
    ++kept->count;
  }
}

std::optional<PooledScore> RunningPools::pooled(std::string_view name) const {
  for (const Running& kept : scores_) {
    if (kept.name != name) continue;
    if (frames_ == 0 || kept.count != frames_) return std::nullopt;  // a frame lacks it
    PooledScore pooled;
    pooled.min = kept.min;
    pooled.max = kept.max;
    pooled.mean = kept.sum / frames_;
    pooled.harmonic_mean = frames_ / kept.inverse_sum - 1.0;
    return pooled;
  }
  return std::nullopt;
}

}  // namespace vmafexact
