// Pooling of per-frame scores exactly as libvmaf 3.2.0's
// vmaf_feature_score_pooled(): one pass in frame order, plain double sums.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
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

// The same pooling kept as running values, for streams of any length: frames
// are added once, in frame order, each with every score it has (under
// subsampling only the frames on the grid). pooled() then equals
// pool_scores() over the frames added, bit for bit: the same double sums in
// the same order, and nullopt where a frame added lacks the score.
class RunningPools {
 public:
  void add_frame(const std::vector<std::pair<std::string, double>>& frame_scores);
  // Frames added.
  unsigned frames() const { return frames_; }
  std::optional<PooledScore> pooled(std::string_view name) const;
  void clear() { *this = RunningPools{}; }

 private:
  struct Running {
    std::string name;
    unsigned count = 0;  // frames with this score; all frames added when it pools
    double min = 0., max = 0., sum = 0., inverse_sum = 0.;
  };
  std::vector<Running> scores_;
  unsigned frames_ = 0;
};

}  // namespace vmafexact
